// The window as a Chrome trace (JSON), for Perfetto or chrome://tracing: a host process with one
// track per thread (ops, and the CUDA calls they made), the modules on each thread, the steps and
// their phases; one GPU process per device with a track per stream; a flow arrow from each op
// to the GPU work it launched. Times are microseconds from the window's first event.
#pragma once

#include <ostream>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

void WriteChromeTrace(const Timeline& timeline, const std::vector<OpPlacement>& placements,
                      std::ostream& out);

}  // namespace advisor
