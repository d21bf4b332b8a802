// Running the training step: warm-up steps that are discarded, unprofiled timing steps, and
// profiled windows whose events become a Timeline.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/torch/training_step.h"

namespace advisor {

class GpuActivityProbe;

// Reports progress: one line, no newline.
using Progress = std::function<void(const std::string&)>;

// Runs `count` steps and returns their spans; nothing is recorded.
std::vector<StepSpan> RunSteps(TrainingStep& step, int count, bool sync_phases);

// Runs `steps` steps with the op probe (and `gpu`, when not null) recording.
Timeline RecordWindow(TrainingStep& step, int steps, GpuActivityProbe* gpu);

// Milliseconds of each step, start to end.
std::vector<double> StepMillis(const std::vector<StepSpan>& spans);

}  // namespace advisor
