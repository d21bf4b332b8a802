// Running the training step: warm-up steps that are discarded, unprofiled timing steps, and
// profiled windows whose events become a Timeline.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/bisect/measured_window.h"
#include "engine/report/report.h"
#include "engine/timeline/timeline.h"
#include "engine/torch/training_step.h"

namespace advisor {

class GpuActivityProbe;

// Reports progress: one line, no newline.
using Progress = std::function<void(const std::string&)>;

// Runs `count` steps and returns their spans; nothing is recorded.
std::vector<StepSpan> RunSteps(TrainingStep& step, int count, bool sync_phases);

// Runs `steps` steps with the op probe (and `gpu`, when not null) recording. `sync_phases`
// synchronises the device at each phase end, so that host timestamps delimit each phase's device
// work too (the baseline's breakdown); kernels find their op by correlation, not by time, so the
// levels' windows run without.
Timeline RecordWindow(TrainingStep& step, int steps, GpuActivityProbe* gpu, bool sync_phases);

// The steps' wait for their batch (the median data phase) with the input stage's settings;
// absent when the workload has no input stage.
std::optional<DataWait> MeasureDataWait(const WorkloadSpec& spec,
                                        const std::vector<StepSpan>& spans);

}  // namespace advisor
