// The step's host phases, from one window's steps: the report's step breakdown and the input
// stage's wait (facts.data).
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

// The phases of one step, which add up to its duration: rest_ms is what lies in none of them.
// data_ms is 0 for a step without a data phase; evaluation_ms is its stretches of no phase, a
// script's evaluation between steps (docs/script-mode.md, "Steps"), 0 elsewhere; loss_ms is a
// script's time between the model's forward and backward(), 0 elsewhere.
struct StepPhases {
  double step_ms = 0;
  double data_ms = 0;
  double forward_ms = 0;
  double loss_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
  double evaluation_ms = 0;
  double rest_ms = 0;
};

// The phases of the window's median step (by duration; the lower middle of an even count): one
// real step, so its phases add up to it, where medians taken phase by phase need not. All zeros
// without steps.
StepPhases PhasesOfMedianStep(const std::vector<StepSpan>& steps);

// The window's mean step and the mean of each phase, which add up to it as well. The report's
// breakdown: a DataLoader's waits come in bursts (its workers' prefetched batches carry some
// steps through without a wait, the next waits for several batches' worth), and the median
// step of such a window is one that did not wait at all. All zeros without steps.
StepPhases PhasesOfMeanStep(const std::vector<StepSpan>& steps);

}  // namespace advisor
