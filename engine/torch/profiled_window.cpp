#include "engine/torch/profiled_window.h"

#include "probes/ops/window_recording.h"

namespace advisor {

std::vector<StepSpan> RunSteps(TrainingStep& step, int count, bool sync_phases) {
  std::vector<StepSpan> spans;
  for (int i = 0; i < count; ++i) spans.push_back(step.Run(i, sync_phases));
  return spans;
}

Timeline RecordWindow(TrainingStep& step, int steps, GpuActivityProbe* gpu, bool sync_phases,
                      bool count_page_faults) {
  WindowRecording recording(gpu, count_page_faults);
  recording.Start();
  std::vector<StepSpan> spans = RunSteps(step, steps, sync_phases);
  Timeline timeline = recording.Finish();
  timeline.steps = std::move(spans);
  return timeline;
}

}  // namespace advisor
