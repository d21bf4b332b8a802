// One profiled window's recording: the op probe, the allocations and frees (memory_reporter), and
// the GPU probe where one is given, from Start() to Finish(), which returns the events with each
// probe's status. The caller measures the steps: the TorchScript runner in C++, the script probe in
// Python.
#pragma once

#include <optional>

#include "engine/timeline/timeline.h"
#include "probes/ops/memory_reporter.h"
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

  // Start, Finish and the destructor on the thread that runs the steps: the allocations are
  // reported through its thread-local state (and the autograd threads it hands it to).
  void Start();
  // Stops recording; the timeline has every event and probe status, and no steps.
  Timeline Finish();

 private:
  void Stop();

  GpuActivityProbe* gpu_;
  bool count_page_faults_;
  bool gpu_active_ = false;
  std::optional<OpProbe> ops_;
  std::optional<MemoryReporting> memory_;  // on the thread that called Start(), which stops it
  bool memory_active_ = false;
};

}  // namespace advisor
