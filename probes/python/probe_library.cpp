// The script probe's native half, loaded into the user's Python process with
// torch.ops.load_library: the same op observer, marker ops and CUPTI probe that `bisect model.pt`
// uses, behind a few operators the Python half (site/advisor_probe) calls between steps.
//
//   advisor::probe_start(bool gpu, bool page_faults) -> ()
//                                          start recording a window (CUPTI too when gpu; the
//                                          top-level ops' page faults when page_faults)
//   advisor::probe_finish() -> str         stop; the window's events as JSON (engine/script)
//   advisor::probe_abandon() -> ()         stop and drop what was recorded (a forked child)
//   advisor::probe_torch_version() -> str  the LibTorch this library was built against
//   advisor::label_begin(str name) -> ()   open a user-scope range named `name` in the window
//   advisor::label_end() -> ()             close the calling thread's innermost one
//   advisor::label_next(str name) -> ()    both, in one call: a frame's next line
//   advisor::own_range_begin(str name) -> ()  open a record_function range of advisor's own
//                                          (`name` is "advisor::..."): what runs inside is not
//                                          the model's work
//   advisor::own_range_end() -> ()         close the calling thread's innermost one
//
// Names contain "advisor::", so the op probe leaves these calls out of the model's ops.
#include <ATen/record_function.h>
#include <torch/library.h>
#include <torch/version.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/script/timeline_codec.h"
#include "probes/cupti/gpu_probe.h"
#include "probes/markers/marker_ops.h"
#include "probes/ops/event_recorder.h"
#include "probes/ops/window_recording.h"

namespace advisor {
namespace {

// Called from the Python thread that runs the training loop, one call at a time.
std::unique_ptr<GpuActivityProbe> g_gpu;
std::unique_ptr<WindowRecording> g_recording;

void ProbeStart(bool gpu, bool page_faults) {
  if (gpu && !g_gpu) g_gpu = MakeGpuActivityProbe();
  g_recording = std::make_unique<WindowRecording>(gpu ? g_gpu.get() : nullptr, page_faults);
  g_recording->Start();
}

std::string ProbeFinish() {
  if (!g_recording) return EventsToJson(Timeline{});
  const Timeline timeline = g_recording->Finish();
  g_recording.reset();
  return EventsToJson(timeline);
}

void ProbeAbandon() {
  g_recording.reset();
  EventRecorder::Get().Stop();
  Timeline discarded;
  EventRecorder::Get().CollectInto(discarded);
}

std::string ProbeTorchVersion() { return TORCH_VERSION; }

// The lines of labelled steps (site/advisor_probe/sources.py): a range each, recorded straight
// into the window. A Python record_function makes a tensor for its handle on torch 1.x, whose
// aten::zeros, one a line run, read as the enclosing line's own ops (517 in a triplet loss's
// calling line). Outside a window a label records nothing, and still pairs with its end.
thread_local std::vector<std::optional<EventRecorder::OpHandle>> t_labels;

void LabelBegin(const std::string& name) {
  EventRecorder& recorder = EventRecorder::Get();
  if (!recorder.recording()) {
    t_labels.emplace_back();
    return;
  }
  t_labels.emplace_back(recorder.BeginOp(name.c_str(), OpScope::kUser,
                                         at::RecordFunction::currentThreadId(), -1, 0, 0));
}

void LabelEnd() {
  if (t_labels.empty()) return;
  if (t_labels.back()) EventRecorder::Get().EndOp(*t_labels.back());
  t_labels.pop_back();
}

// One call from Python between a line and the next: the tracer's own time between the two would
// otherwise be the enclosing line's (a line that called 1,500 line runs read 5 % of the step).
void LabelNext(const std::string& name) {
  LabelEnd();
  LabelBegin(name);
}

// advisor's own ranges (the script probe's device synchronisation at a measured step's end,
// session.py's _sync_if, which runs inside the user's Optimizer.step#): record_function ranges as
// torch.profiler records them, named "advisor::...", so that the op probe links the CUDA calls
// made inside to no op (op_probe.cpp) and a trace's reader passes over them. Opened here rather
// than by Python's record_function, whose own op (and on torch 1.x its handle's aten::zeros)
// would be recorded as the user's, inside the user's range.
thread_local std::vector<std::unique_ptr<at::RecordFunction>> t_own_ranges;

void OwnRangeBegin(const std::string& name) {
  auto range = std::make_unique<at::RecordFunction>(at::RecordScope::USER_SCOPE);
  if (range->isActive()) range->before(name);
  t_own_ranges.push_back(std::move(range));
}

void OwnRangeEnd() {
  if (!t_own_ranges.empty()) t_own_ranges.pop_back();  // the range ends as it is destroyed
}

// The marker ops live in a static library: referencing it keeps their registration linked in.
const bool kMarkersLinked = (EnsureMarkerOpsRegistered(), true);

}  // namespace
}  // namespace advisor

TORCH_LIBRARY_FRAGMENT(advisor, m) {
  m.def("probe_start(bool gpu, bool page_faults) -> ()", &advisor::ProbeStart);
  m.def("probe_finish() -> str", &advisor::ProbeFinish);
  m.def("probe_abandon() -> ()", &advisor::ProbeAbandon);
  m.def("probe_torch_version() -> str", &advisor::ProbeTorchVersion);
  m.def("label_begin(str name) -> ()", &advisor::LabelBegin);
  m.def("label_end() -> ()", &advisor::LabelEnd);
  m.def("label_next(str name) -> ()", &advisor::LabelNext);
  m.def("own_range_begin(str name) -> ()", &advisor::OwnRangeBegin);
  m.def("own_range_end() -> ()", &advisor::OwnRangeEnd);
}
