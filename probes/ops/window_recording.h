// One profiled window's recording: the op probe (and the GPU probe, where one is given) from
// Start() to Finish(), which returns the events with each probe's status. The caller measures the
// steps: the TorchScript runner in C++, the script probe in Python.
#pragma once

#include <optional>

#include "engine/timeline/timeline.h"
#include "probes/ops/op_probe.h"

namespace advisor {

class GpuActivityProbe;

class WindowRecording {
 public:
  // `count_page_faults`: the top-level ops count their minor page faults (a CPU model's window;
  // see EventRecorder::Start).
  WindowRecording(GpuActivityProbe* gpu, bool count_page_faults);
  ~WindowRecording();  // stops the probes if Finish() was never reached (a step threw)
  WindowRecording(const WindowRecording&) = delete;
  WindowRecording& operator=(const WindowRecording&) = delete;

  void Start();
  // Stops recording; the timeline has every event and probe status, and no steps.
  Timeline Finish();

 private:
  void Stop();

  GpuActivityProbe* gpu_;
  bool count_page_faults_;
  bool gpu_active_ = false;
  std::optional<OpProbe> ops_;
};

}  // namespace advisor
