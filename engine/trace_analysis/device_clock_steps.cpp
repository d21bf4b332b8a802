#include "engine/trace_analysis/device_clock_steps.h"

#include <algorithm>
#include <limits>

namespace advisor {
namespace {

// device(t) over one trace's work: launches in order, and the latest end of the work launched so
// far at each of them.
class DeviceClock {
 public:
  explicit DeviceClock(const std::vector<LaunchedWork>& work) {
    TimeNs latest = std::numeric_limits<TimeNs>::min();
    for (const LaunchedWork& item : work) {
      latest = std::max(latest, item.end_ns);
      launches_.push_back(item.launch_ns);
      finished_by_.push_back(latest);
    }
  }

  TimeNs At(TimeNs host) const {
    const auto launched = std::lower_bound(launches_.begin(), launches_.end(), host);
    if (launched == launches_.begin()) return host;
    return std::max(host, finished_by_[launched - launches_.begin() - 1]);
  }

 private:
  std::vector<TimeNs> launches_;
  std::vector<TimeNs> finished_by_;  // the latest end of the work launched up to each launch
};

}  // namespace

std::vector<StepSpan> DeviceClockSteps(const std::vector<StepSpan>& host_steps,
                                       const std::vector<LaunchedWork>& work) {
  const DeviceClock clock(work);
  std::vector<StepSpan> steps = host_steps;
  for (StepSpan& step : steps) {
    step.start_ns = clock.At(step.start_ns);
    step.end_ns = clock.At(step.end_ns);
    for (PhaseSpan& phase : step.phases) {
      phase.start_ns = clock.At(phase.start_ns);
      phase.end_ns = clock.At(phase.end_ns);
    }
  }
  return steps;
}

}  // namespace advisor
