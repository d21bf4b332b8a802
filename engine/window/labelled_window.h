// A profiled window as the run keeps it for its trace file: what the window measured, its
// timeline and each op's placement. The bisection keeps one per window it ran; the trace writer
// (engine/report/chrome_trace) draws them.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct LabelledWindow {
  std::string label;  // what the window measured: "window 3: the children of trunk"
  Timeline timeline;
  OpPlacements placements;  // one per timeline op
};

}  // namespace advisor
