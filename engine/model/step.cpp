#include "engine/model/step.h"

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

}  // namespace advisor
