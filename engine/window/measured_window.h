// One profiled window, placed and attributed: what every analysis of a window starts from.
#pragma once

#include <memory>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct MeasuredWindow {
  Timeline timeline;
  OpPlacements placements;
  std::unique_ptr<WindowAttribution> attribution;  // device time per op where a GPU probe recorded
};

MeasuredWindow MeasureWindow(Timeline timeline);

// Milliseconds of each step, start to end.
std::vector<double> StepMillis(const std::vector<StepSpan>& spans);

}  // namespace advisor
