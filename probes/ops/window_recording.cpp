#include "probes/ops/window_recording.h"

#include "probes/cupti/gpu_probe.h"
#include "probes/ops/event_recorder.h"
#include "probes/ops/page_faults.h"

namespace advisor {

WindowRecording::WindowRecording(GpuActivityProbe* gpu, bool count_page_faults)
    : gpu_(gpu), count_page_faults_(count_page_faults) {}

WindowRecording::~WindowRecording() { Stop(); }

void WindowRecording::Start() {
  gpu_active_ = gpu_ != nullptr && gpu_->Start();
  ops_.emplace(gpu_active_ ? gpu_ : nullptr);
  ops_->Start(count_page_faults_);
  memory_.emplace();
  memory_active_ = memory_->active();
}

void WindowRecording::Stop() {
  memory_.reset();
  if (ops_) {
    ops_->Stop();
    ops_.reset();
  }
  if (gpu_active_) {
    gpu_->Stop();
    gpu_active_ = false;
  }
}

Timeline WindowRecording::Finish() {
  Stop();
  Timeline timeline;
  EventRecorder::Get().CollectInto(timeline);
  if (count_page_faults_) timeline.page_fault_ns = PageFaultNs();
  timeline.probes.push_back({"ops", true, "ATen RecordFunction observer", 0});
  timeline.probes.push_back(
      {"memory", memory_active_,
       memory_active_ ? ""
                      : "another profiler held the thread's memory reporting: no allocations "
                        "recorded",
       0});
  // Records and the probe's status, or why it could not run.
  if (gpu_ != nullptr) gpu_->DrainInto(timeline);
  return timeline;
}

}  // namespace advisor
