#include "probes/ops/op_probe.h"

#include <ATen/record_function.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "probes/cupti/gpu_probe.h"
#include "probes/ops/event_recorder.h"

namespace advisor {
namespace {

// RecordFunction callbacks are plain function pointers: the probe's state lives here.
std::atomic<GpuActivityProbe*> g_gpu{nullptr};
std::atomic<std::uint64_t> g_next_correlation{1};

struct OpContext : at::ObserverContext {
  EventRecorder::OpHandle handle;
  bool correlated = false;
  bool advisor_own = false;
};

// Depth of advisor's own ops on this thread: the ops they call (detach in the marker) are not
// the model's work either.
thread_local int t_inside_advisor_op = 0;

// ExcludeThisThreadFromOpProbe was called on this thread.
thread_local bool t_excluded = false;

// The top-level forward op OnOpStart began last on this thread, whose inputs the inputs callback
// reads next (the same RecordFunction: its handle); 0 when none awaits.
thread_local EventRecorder::OpHandle t_began;
thread_local at::RecordFunctionHandle t_awaiting_inputs = 0;

OpScope ScopeOf(at::RecordScope scope) {
  switch (scope) {
    case at::RecordScope::FUNCTION: return OpScope::kForward;
    case at::RecordScope::BACKWARD_FUNCTION: return OpScope::kBackward;
    case at::RecordScope::USER_SCOPE: return OpScope::kUser;
    default: return OpScope::kOther;
  }
}

// The marker ops and their autograd nodes are advisor's own instruments, not the model's work.
bool IsAdvisorOwn(const char* name) { return std::strstr(name, "advisor::") != nullptr; }

// The autograd engine wraps each node it runs ("autograd::engine::evaluate_function:
// GatherBackward0") around the node's own event, which carries the sequence number. Leaving the
// wrapper out makes the node itself the top-level op.
bool IsEngineWrapper(const char* name) {
  static constexpr char kPrefix[] = "autograd::engine::evaluate_function: ";
  return std::strncmp(name, kPrefix, sizeof kPrefix - 1) == 0;
}

// Gloo's collectives are async ranges ("gloo:all_reduce"), but each begins and ends on the gloo
// worker thread that runs it, from when the worker takes it up to when every rank has joined: the
// per-thread recorder can hold them, and the multi-rank analysis reads the waits from them. Other
// async ranges (NCCL's work) may end on another thread than they began on: left out.
bool IsRecordableAsync(const char* name) { return std::strncmp(name, "gloo:", 5) == 0; }

// Of the tensor inputs: the largest one's elements, and the elements of their shapes broadcast
// together (-1 where they do not broadcast). Read for top-level ops only: what a materialised
// broadcast temporary is made of (engine/analysis/broadcast_temporaries).
std::pair<std::int64_t, std::int64_t> InputElements(c10::ArrayRef<const c10::IValue> inputs) {
  std::int64_t largest = -1;
  std::vector<std::int64_t> shape;  // the broadcast shape, innermost dimension first
  bool broadcasts = true;
  for (const c10::IValue& input : inputs) {
    if (!input.isTensor() || !input.toTensor().defined()) continue;
    const at::Tensor& tensor = input.toTensor();
    largest = std::max<std::int64_t>(largest, tensor.numel());
    const c10::IntArrayRef sizes = tensor.sizes();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::int64_t size = sizes[sizes.size() - 1 - i];
      if (i == shape.size()) {
        shape.push_back(size);
      } else if (shape[i] == 1) {
        shape[i] = size;
      } else if (size != 1 && size != shape[i]) {
        broadcasts = false;
      }
    }
  }
  if (largest < 0 || !broadcasts) return {largest, -1};
  std::int64_t elements = 1;
  for (const std::int64_t size : shape) elements *= size;
  return {largest, elements};
}

std::unique_ptr<at::ObserverContext> OnOpStart(const at::RecordFunction& fn) {
  t_awaiting_inputs = 0;
  const char* name = fn.name();
  if (t_excluded || (fn.isAsync() && !IsRecordableAsync(name))) return nullptr;
  auto context = std::make_unique<OpContext>();
  if (IsAdvisorOwn(name)) {
    // Counted even inside another of advisor's ops: the script probe's own range opens inside
    // its advisor::own_range_begin call and stays open after it returns.
    ++t_inside_advisor_op;
    context->advisor_own = true;
    // The CUDA calls made inside (the script probe's device synchronisation, inside the user's
    // Optimizer.step#) are no op's: id 0, which no op has, rather than the enclosing op's.
    if (GpuActivityProbe* gpu = g_gpu.load(std::memory_order_relaxed)) {
      gpu->PushCorrelation(0);
      context->correlated = true;
    }
    return context;
  }
  if (t_inside_advisor_op > 0 || IsEngineWrapper(name)) return nullptr;
  std::uint64_t correlation = 0;
  if (GpuActivityProbe* gpu = g_gpu.load(std::memory_order_relaxed)) {
    correlation = g_next_correlation.fetch_add(1, std::memory_order_relaxed);
    gpu->PushCorrelation(correlation);
    context->correlated = true;
  }
  context->handle = EventRecorder::Get().BeginOp(name, ScopeOf(fn.scope()), fn.threadId(),
                                                 fn.seqNr(), fn.forwardThreadId(), correlation);
  if (context->handle.depth == 0 && fn.scope() == at::RecordScope::FUNCTION) {
    t_awaiting_inputs = fn.handle();
    t_began = context->handle;
  }
  return context;
}

// The inputs callback, which runs right after OnOpStart for the same forward op: the shapes of a
// top-level op's inputs.
std::unique_ptr<at::ObserverContext> OnForwardOpInputs(const at::RecordFunction& fn) {
  if (t_awaiting_inputs == 0 || fn.handle() != t_awaiting_inputs) return nullptr;
  t_awaiting_inputs = 0;
  const auto [largest, broadcast] = InputElements(fn.inputs());
  EventRecorder::Get().SetInputElements(t_began, largest, broadcast);
  return nullptr;
}

void OnOpEnd(const at::RecordFunction& /*fn*/, at::ObserverContext* raw_context) {
  auto* context = static_cast<OpContext*>(raw_context);
  if (context == nullptr) return;
  if (context->advisor_own) {
    --t_inside_advisor_op;
  } else {
    EventRecorder::Get().EndOp(context->handle);
  }
  if (context->correlated) {
    if (GpuActivityProbe* gpu = g_gpu.load(std::memory_order_relaxed)) gpu->PopCorrelation();
  }
}

}  // namespace

void ExcludeThisThreadFromOpProbe() { t_excluded = true; }

OpProbe::OpProbe(GpuActivityProbe* gpu) { g_gpu.store(gpu, std::memory_order_relaxed); }

OpProbe::~OpProbe() {
  Stop();
  g_gpu.store(nullptr, std::memory_order_relaxed);
}

void OpProbe::Start(bool count_page_faults) {
  if (active_) return;
  EventRecorder::Get().Start(count_page_faults);
  handle_ = at::addGlobalCallback(
      at::RecordFunctionCallback(&OnOpStart, &OnOpEnd)
          .needsInputs(false)
          .needsIds(true)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                   at::RecordScope::USER_SCOPE}));
  // The forward ops' input shapes, for broadcast temporaries, from a callback of their own: one
  // that needs inputs makes an autograd node hold its inputs while it runs, and AccumulateGrad
  // then copies each gradient it would have taken over. A forward op's boxed arguments are
  // released before its kernel runs. Registered second, it runs after OnOpStart for each op.
  inputs_handle_ = at::addGlobalCallback(at::RecordFunctionCallback(&OnForwardOpInputs)
                                             .needsInputs(true)
                                             .scopes({at::RecordScope::FUNCTION}));
  active_ = true;
}

void OpProbe::Stop() {
  if (!active_) return;
  at::removeCallback(handle_);
  at::removeCallback(inputs_handle_);
  EventRecorder::Get().Stop();
  active_ = false;
}

}  // namespace advisor
