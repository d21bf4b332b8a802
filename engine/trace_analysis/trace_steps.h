// The training steps of a trace, cut into the phases the engine uses. prof.step() brackets each
// step with a ProfilerStep#N range; a trace recorded without it (torch's documentation profiles a
// few steps with no schedule) is cut where torch.optim's steps end. Inside a step, the
// DataLoader's __next__ is the data phase, the first autograd node ends forward, and
// torch.optim's Optimizer.step# range starts the optimizer phase (the last backward node ends
// backward where there is none). advisor's own trace.json says where its probe cut each step
// (HostEvents::advisor_phases): its steps take those phases, as the bisection measured them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_events.h"

namespace advisor {

// Where a trace's steps were cut.
enum class StepCut {
  kProfilerSteps,   // its ProfilerStep#N ranges
  kOptimizerSteps,  // none (prof.step() was never called): at the ends of torch.optim's steps
  kWholeTrace,      // neither: the whole trace is one step
};

// One of the profiled windows advisor's trace.json holds: what it instrumented, the span of its
// records and its steps, `steps[first_step, end_step)` of TraceSteps::steps (the windows ran one
// after the other, so each one's steps follow the last one's).
struct AdvisorWindow {
  std::string label;  // "the children of trunk (measured again)"
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::size_t first_step = 0;
  std::size_t end_step = 0;
};

struct TraceSteps {
  std::vector<StepSpan> steps;
  StepCut cut = StepCut::kWholeTrace;
  // Cut at the optimizer's steps: the trace began inside a step (no forward before the first
  // optimizer step ended), and that part was left out of the steps.
  bool partial_first_step_left_out = false;
  // The same steps on the device's clock (DeviceClockSteps), where the trace holds device work
  // whose launches it recorded; empty otherwise.
  std::vector<StepSpan> on_device;
  // advisor's own trace.json (HostEvents::advisor_windows): its profiled windows in the order
  // they ran, the first the bisection's baseline, whose step and phase times its report gives;
  // empty in any other trace, whose steps are all the report's.
  std::vector<AdvisorWindow> windows;
};

TraceSteps StepsOf(const HostEvents& host);

}  // namespace advisor
