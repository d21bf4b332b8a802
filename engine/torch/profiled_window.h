// Running the TorchScript training step: unprofiled steps, and profiled windows whose events
// become a Timeline.
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/torch/training_step.h"

namespace advisor {

class GpuActivityProbe;

// Runs `count` steps and returns their spans; nothing is recorded.
std::vector<StepSpan> RunSteps(TrainingStep& step, int count, bool sync_phases);

// Runs `steps` steps with the op probe (and `gpu`, when not null) recording. `sync_phases`
// synchronises the device at each phase end, so that host timestamps delimit each phase's device
// work too (the baseline's breakdown); kernels find their op by correlation, not by time, so the
// levels' windows run without. `count_page_faults`: a CPU model's top-level ops count their page
// faults (EventRecorder::Start).
Timeline RecordWindow(TrainingStep& step, int steps, GpuActivityProbe* gpu, bool sync_phases,
                      bool count_page_faults);

}  // namespace advisor
