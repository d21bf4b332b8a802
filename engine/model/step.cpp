#include "engine/model/step.h"

#include <algorithm>

namespace advisor {

const char* StepTimingName(StepTiming timing) {
  switch (timing) {
    case StepTiming::kHostClock:
      return "host_clock";
    case StepTiming::kHostClockSynced:
      return "host_clock_synchronised";
    case StepTiming::kDeviceEvents:
      return "cuda_events";
    case StepTiming::kProfilerTrace:
      return "profiler_trace";
  }
  return "host_clock";
}

const char* StepTimingText(StepTiming timing) {
  switch (timing) {
    case StepTiming::kHostClock:
      return "host clock";
    case StepTiming::kHostClockSynced:
      return "host clock, ending in a device sync";
    case StepTiming::kDeviceEvents:
      return "CUDA events";
    case StepTiming::kProfilerTrace:
      return "the trace's step spans";
  }
  return "host clock";
}

std::optional<bool> WorkersKeepUp(const DataWait& data, const StepBreakdown& step) {
  if (!data.stage || !data.workers || *data.workers < 1 || step.mean_ms <= 0) return std::nullopt;
  const double wait_ms =
      step.timed_phases && step.timed_phases->data_ms ? *step.timed_phases->data_ms : data.wait_ms;
  const double supply_ms =
      data.stage->batch_ms / std::min(*data.workers, std::max(data.stage->cores, 1));
  return supply_ms <= step.mean_ms - wait_ms;
}

bool DataPhaseIsMainProcessWork(const DataWait& data, const StepBreakdown& step) {
  return data.stage && data.stage->worker_busy_share &&
         *data.stage->worker_busy_share < kIdleWorkersShare && WorkersKeepUp(data, step) == true;
}

}  // namespace advisor
