#include "engine/analysis/step_phases.h"

#include <algorithm>

namespace advisor {

namespace {

StepPhases PhasesOf(const StepSpan& step) {
  StepPhases phases;
  phases.step_ms = (step.end_ns - step.start_ns) * 1e-6;
  phases.data_ms = step.TimeIn(Phase::kData) * 1e-6;
  phases.forward_ms = step.TimeIn(Phase::kForward) * 1e-6;
  phases.loss_ms = step.TimeIn(Phase::kLoss) * 1e-6;
  phases.backward_ms = step.TimeIn(Phase::kBackward) * 1e-6;
  phases.optimizer_ms = step.TimeIn(Phase::kOptimizer) * 1e-6;
  phases.evaluation_ms = step.TimeIn(Phase::kOutside) * 1e-6;
  phases.rest_ms = std::max(0.0, phases.step_ms - phases.data_ms - phases.forward_ms -
                                     phases.loss_ms - phases.backward_ms - phases.optimizer_ms -
                                     phases.evaluation_ms);
  return phases;
}

}  // namespace

StepPhases PhasesOfMedianStep(const std::vector<StepSpan>& steps) {
  if (steps.empty()) return {};
  std::vector<const StepSpan*> by_duration;
  for (const StepSpan& step : steps) by_duration.push_back(&step);
  std::stable_sort(by_duration.begin(), by_duration.end(),
                   [](const StepSpan* a, const StepSpan* b) {
                     return a->end_ns - a->start_ns < b->end_ns - b->start_ns;
                   });
  return PhasesOf(*by_duration[(by_duration.size() - 1) / 2]);
}

StepPhases PhasesOfMeanStep(const std::vector<StepSpan>& steps) {
  StepPhases mean;
  for (const StepSpan& step : steps) {
    const StepPhases phases = PhasesOf(step);
    mean.step_ms += phases.step_ms / steps.size();
    mean.data_ms += phases.data_ms / steps.size();
    mean.forward_ms += phases.forward_ms / steps.size();
    mean.loss_ms += phases.loss_ms / steps.size();
    mean.backward_ms += phases.backward_ms / steps.size();
    mean.optimizer_ms += phases.optimizer_ms / steps.size();
    mean.evaluation_ms += phases.evaluation_ms / steps.size();
    mean.rest_ms += phases.rest_ms / steps.size();
  }
  return mean;
}

}  // namespace advisor
