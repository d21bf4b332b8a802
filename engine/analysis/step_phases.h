// The step's host phases over a window's steps, as medians: the report's step breakdown and the
// input stage's wait (facts.data).
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

// Each number is the median of its own per-step values, so they need not add up to the median
// step. data_ms is 0 for steps without a data phase.
struct StepPhaseMedians {
  double data_ms = 0;
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
};

StepPhaseMedians MedianPhases(const std::vector<StepSpan>& steps);

}  // namespace advisor
