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
}

void WindowRecording::Stop() {
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
  // Records and the probe's status, or why it could not run.
  if (gpu_ != nullptr) gpu_->DrainInto(timeline);
  return timeline;
}

}  // namespace advisor
