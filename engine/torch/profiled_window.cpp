#include "engine/torch/profiled_window.h"

#include "engine/analysis/step_phases.h"
#include "probes/cupti/gpu_probe.h"
#include "probes/ops/event_recorder.h"
#include "probes/ops/op_probe.h"

namespace advisor {

std::vector<StepSpan> RunSteps(TrainingStep& step, int count, bool sync_phases) {
  std::vector<StepSpan> spans;
  for (int i = 0; i < count; ++i) spans.push_back(step.Run(i, sync_phases));
  return spans;
}

Timeline RecordWindow(TrainingStep& step, int steps, GpuActivityProbe* gpu, bool sync_phases) {
  Timeline timeline;
  const bool gpu_active = gpu != nullptr && gpu->Start();
  {
    OpProbe ops(gpu_active ? gpu : nullptr);
    ops.Start();
    try {
      timeline.steps = RunSteps(step, steps, sync_phases);
    } catch (...) {
      ops.Stop();
      if (gpu_active) gpu->Stop();
      throw;
    }
    ops.Stop();
  }
  EventRecorder::Get().CollectInto(timeline);
  timeline.probes.push_back({"ops", true, "ATen RecordFunction observer", 0});
  if (gpu != nullptr) {
    if (gpu_active) gpu->Stop();
    gpu->DrainInto(timeline);  // records and the probe's status, or why it could not run
  }
  return timeline;
}

std::optional<DataWait> MeasureDataWait(const WorkloadSpec& spec,
                                        const std::vector<StepSpan>& spans) {
  if (!spec.input_stage) return std::nullopt;
  return DataWait{MedianPhases(spans).data_ms, spec.input_stage->workers,
                  spec.input_stage->pin_memory && spec.device == "cuda"};
}

}  // namespace advisor
