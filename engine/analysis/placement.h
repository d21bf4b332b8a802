// Where each op of a window ran: which step, which phase, inside which instrumented module.
// Computed once from the timeline and shared by attribution, GPU attribution, sync/copy
// localisation and the trace writer.
#pragma once

#include <string>
#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

const char* PhaseName(Phase phase);

struct OpPlacement {
  int step = -1;             // index into Timeline::steps; -1 outside every step
  Phase phase = Phase::kOutside;
  std::string module;        // innermost instrumented module instance, "" when none
  int top_level = -1;        // index of the outermost enclosing op on its thread (itself if depth 0)
  int parent = -1;           // index of the innermost enclosing op on its thread; -1 at top level
};

// One entry per Timeline::ops element, same order.
std::vector<OpPlacement> PlaceOps(const Timeline& timeline);

}  // namespace advisor
