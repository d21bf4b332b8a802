#include "probes/markers/marker_ops.h"

#include <ATen/record_function.h>
#include <torch/library.h>
#include <torch/torch.h>

#include "probes/ops/event_recorder.h"

namespace advisor {
namespace {

void Record(const std::string& path, MarkerKind kind) {
  EventRecorder& recorder = EventRecorder::Get();
  if (recorder.recording()) {
    recorder.RecordMarker(path, kind, at::RecordFunction::currentThreadId());
  }
}

// The autograd node name contains "advisor::", so the op probe leaves it out of the model's ops.
struct MarkFunction : public torch::autograd::Function<MarkFunction> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                at::TensorList xs, std::string path,
                                                std::int64_t kind) {
    Record(path, kind == kEnterKind ? MarkerKind::kForwardEnter : MarkerKind::kForwardExit);
    ctx->saved_data["path"] = path;
    ctx->saved_data["kind"] = kind;
    torch::autograd::variable_list out;
    out.reserve(xs.size());
    // detach(), not the input itself or a view: an in-place op on the marker's output (e.g.
    // ReLU(inplace=True)) must not hit autograd's view-modified-in-place check.
    for (const at::Tensor& x : xs) out.push_back(x.defined() ? x.detach() : x);
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const std::string path = ctx->saved_data["path"].toStringRef();
    const bool enter = ctx->saved_data["kind"].toInt() == kEnterKind;
    Record(path, enter ? MarkerKind::kBackwardEnd : MarkerKind::kBackwardBegin);
    grads.emplace_back();  // no gradient for path
    grads.emplace_back();  // nor for kind
    return grads;
  }
};

std::vector<at::Tensor> Mark(at::TensorList xs, std::string path, std::int64_t kind) {
  return MarkFunction::apply(xs, std::move(path), kind);
}

void MarkEvent(std::string path, std::int64_t kind) {
  Record(path, kind == kEnterKind ? MarkerKind::kForwardEnter : MarkerKind::kForwardExit);
}

}  // namespace

void EnsureMarkerOpsRegistered() {}

}  // namespace advisor

// CompositeImplicitAutograd: the kernel runs above autograd for every backend, and MarkFunction
// builds its own autograd node. Conservative alias analysis keeps the JIT from removing or
// reordering the side-effecting marker nodes.
TORCH_LIBRARY(advisor, m) {
  m.def(torch::schema("advisor::mark(Tensor[] xs, str path, int kind) -> Tensor[]",
                      c10::AliasAnalysisKind::CONSERVATIVE),
        &advisor::Mark);
  m.def(torch::schema("advisor::mark_event(str path, int kind) -> ()",
                      c10::AliasAnalysisKind::CONSERVATIVE),
        &advisor::MarkEvent);
}
