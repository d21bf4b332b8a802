// Which steps of advisor's own trace.json time each module. The trace holds every window of a
// bisection, each instrumenting one level's modules (and its parent's own call, and the deeper
// levels' modules sit inside it by path), while the bisection timed each module once: in the
// window of the level that compared it with its siblings, the first window that named it, or
// where that level was measured again and the bisection followed the second window
// (engine/bisect), that one. Medians over every window's steps mix in steps in which the module
// was no module at all, or only the parent of deeper ones.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/trace_steps.h"

namespace advisor {

// For each of `paths`, the steps of the window that measured it, found by where its markers lie
// among `windows` (TraceSteps::windows, in the order they ran); all `steps` for a module no
// window names, and for every module of a trace without windows (anyone's but advisor's).
std::vector<StepRange> MeasuringSteps(const std::vector<AdvisorWindow>& windows,
                                      const std::vector<MarkerEvent>& markers,
                                      const std::vector<ModulePath>& paths, std::size_t steps);

}  // namespace advisor
