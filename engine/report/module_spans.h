// Module instance spans rebuilt from marker pairs on each thread: forward enter..exit and
// backward begin..end. A module whose inputs need no gradient sends no backward end; its span
// then ends where the thread next enters something that is neither it nor inside it, and says
// its end was inferred.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct ModuleSpan {
  ModulePath path;
  ThreadId thread = 0;
  bool backward = false;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  bool end_inferred =
      false;  // no closing marker: ended by the rule above or the thread's last event
};

// In the order the spans open on each thread. A closing marker whose opening fell before the
// window makes no span: its start is unknown.
std::vector<ModuleSpan> RebuildModuleSpans(const Timeline& timeline);

// Ends each backward span whose end was inferred where the last op `placements` (PlaceOps) put in
// it or below it, in the phase stretch it began in, ends; at its start where none. The next
// module's marker may come long after its last node, another module's unmarked backward between
// (an embedding fed integer ids, whose span ran over a whole tower's backward), or none in the
// step (the parent of a level, whose span ran over the window's later steps).
void EndInferredBackwardSpansWithTheirOps(const Timeline& timeline, const OpPlacements& placements,
                                          std::vector<ModuleSpan>& spans);

}  // namespace advisor
