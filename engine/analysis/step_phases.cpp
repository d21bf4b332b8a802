#include "engine/analysis/step_phases.h"

#include <algorithm>

namespace advisor {
namespace {

double MedianMs(std::vector<TimeNs> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double ns = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  return ns * 1e-6;
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
