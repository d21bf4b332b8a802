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
    data.push_back(step.forward_start_ns() - step.start_ns);
    forward.push_back(step.forward_end_ns - step.forward_start_ns());
    backward.push_back(step.backward_end_ns - step.forward_end_ns);
    optimizer.push_back(step.end_ns - step.backward_end_ns);
  }
  return {MedianMs(data), MedianMs(forward), MedianMs(backward), MedianMs(optimizer)};
}

}  // namespace advisor
