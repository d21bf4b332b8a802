// The step's host phases, from one window's steps: the report's step breakdown and the input
// stage's wait (facts.data).
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

// The phases of one step, which add up to its duration: rest_ms is what lies in none of them.
// data_ms is 0 for a step without a data phase.
struct StepPhases {
  double step_ms = 0;
  double data_ms = 0;
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
  double rest_ms = 0;
};

// The phases of the window's median step (by duration; the lower middle of an even count): one
// real step, so the breakdown's shares add up to 100 %, where medians taken phase by phase need
// not. All zeros without steps.
StepPhases PhasesOfMedianStep(const std::vector<StepSpan>& steps);

}  // namespace advisor
