// A GPU trace's steps on the device's clock. The host runs ahead of asynchronous device work and
// waits for it wherever something synchronises (an .item(), the optimizer's end, the next
// batch's copy), so a step's host phases time the launches and that wait, not the work. Each
// boundary of a step (its start, each phase's end) is moved to the time the device had finished
// all the work the host had launched before it, or kept where the host reached it later:
//
//   device(t) = max(t, end of the last-finishing work launched before host time t)
//
// A phase on the device is then the time from the end of the previous phases' work to the end of
// its own: what a CUDA event recorded at each boundary measures (a script's unprofiled steps,
// step.timed_phases_ms), and what the bisection's baseline window measures by synchronising at
// each phase's end (step.forward_ms, ...) when the trace was recorded so. Work on every stream of
// the device counts, as a device synchronisation waits for all of it.
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/gpu_records.h"

namespace advisor {

// `host_steps` with every boundary on the device's clock; `work` in launch order
// (GpuRecords::launched_work). Without work the steps are the host's.
std::vector<StepSpan> DeviceClockSteps(const std::vector<StepSpan>& host_steps,
                                       const std::vector<LaunchedWork>& work);

}  // namespace advisor
