#include "engine/analysis/step_phases.h"

#include "engine/util/median.h"

namespace advisor {
namespace {

double MedianMs(const std::vector<TimeNs>& values) {
  return Median(std::vector<double>(values.begin(), values.end())) * 1e-6;
}

}  // namespace

StepPhaseMedians MedianPhases(const std::vector<StepSpan>& steps) {
  std::vector<TimeNs> data, forward, backward, optimizer;
  for (const StepSpan& step : steps) {
    data.push_back(step.TimeIn(Phase::kData));
    forward.push_back(step.TimeIn(Phase::kForward));
    backward.push_back(step.TimeIn(Phase::kBackward));
    optimizer.push_back(step.TimeIn(Phase::kOptimizer));
  }
  return {MedianMs(data), MedianMs(forward), MedianMs(backward), MedianMs(optimizer)};
}

}  // namespace advisor
