#include "engine/analysis/step_phases.h"

#include <algorithm>

namespace advisor {

StepPhases PhasesOfMedianStep(const std::vector<StepSpan>& steps) {
  if (steps.empty()) return {};
  std::vector<const StepSpan*> by_duration;
  for (const StepSpan& step : steps) by_duration.push_back(&step);
  std::stable_sort(by_duration.begin(), by_duration.end(), [](const StepSpan* a, const StepSpan* b) {
    return a->end_ns - a->start_ns < b->end_ns - b->start_ns;
  });
  const StepSpan& median = *by_duration[(by_duration.size() - 1) / 2];
  StepPhases phases;
  phases.step_ms = (median.end_ns - median.start_ns) * 1e-6;
  phases.data_ms = median.TimeIn(Phase::kData) * 1e-6;
  phases.forward_ms = median.TimeIn(Phase::kForward) * 1e-6;
  phases.backward_ms = median.TimeIn(Phase::kBackward) * 1e-6;
  phases.optimizer_ms = median.TimeIn(Phase::kOptimizer) * 1e-6;
  phases.rest_ms = std::max(0.0, phases.step_ms - phases.data_ms - phases.forward_ms -
                                     phases.backward_ms - phases.optimizer_ms);
  return phases;
}

}  // namespace advisor
