// The training steps of a trace, cut into the phases the engine uses. prof.step() brackets each
// step with a ProfilerStep#N range; inside it, the DataLoader's __next__ is the data phase, the
// first autograd node ends forward, and torch.optim's Optimizer.step# range starts the optimizer
// phase (the last backward node ends backward where there is none).
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_events.h"

namespace advisor {

struct TraceSteps {
  std::vector<StepSpan> steps;
  // False when the trace has no ProfilerStep#N ranges (prof.step() was never called): the whole
  // trace is then taken as one step.
  bool from_profiler_steps = false;
  // The same steps on the device's clock (DeviceClockSteps), where the trace holds device work
  // whose launches it recorded; empty otherwise.
  std::vector<StepSpan> on_device;
};

TraceSteps StepsOf(const HostEvents& host);

}  // namespace advisor
