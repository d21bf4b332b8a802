#include "engine/torch/stage_op_recorder.h"

#include <ATen/ATen.h>
#include <ATen/core/function_schema.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "engine/torch/dtype_name.h"
#include "engine/torch/source_location.h"

namespace advisor {

struct StageOpRecorder::State {
  bool check_inputs = false;
  int depth = 0;  // ops open on the thread: only the outermost are the stage's pieces
  std::vector<RecordedStageOp> ops;
};

namespace {

// The recorder of this thread; RecordFunction callbacks are plain function pointers.
thread_local StageOpRecorder::State* t_state = nullptr;

struct OpClock : at::ObserverContext {
  std::chrono::steady_clock::time_point start;
  std::size_t index = 0;
};

// The largest tensor among `values` (tensors and lists of tensors); undefined when none.
at::Tensor LargestTensor(c10::ArrayRef<c10::IValue> values) {
  at::Tensor largest;
  const auto consider = [&largest](const at::Tensor& tensor) {
    if (tensor.defined() && (!largest.defined() || tensor.numel() > largest.numel())) {
      largest = tensor;
    }
  };
  for (const c10::IValue& value : values) {
    if (value.isTensor()) {
      consider(value.toTensor());
    } else if (value.isTensorList()) {
      for (const at::Tensor& tensor : value.toTensorVector()) consider(tensor);
    }
  }
  return largest;
}

// The last `count` values of a boxed call's stack: the dispatcher hands an observer the whole
// interpreter stack, of which the op's arguments (before) or returns (after) are the top.
c10::ArrayRef<c10::IValue> Top(const c10::IValue* data, std::size_t size, std::size_t count) {
  count = std::min(count, size);
  return c10::ArrayRef<c10::IValue>(data + size - count, count);
}

std::vector<long long> ShapeOf(const at::Tensor& tensor) {
  if (!tensor.defined()) return {};
  return std::vector<long long>(tensor.sizes().begin(), tensor.sizes().end());
}

// Whether a floating-point tensor holds only 0 and 1 (a mask computed in float); nullopt for
// other dtypes (a bool or integer tensor is as narrow as its values need, or not a mask).
std::optional<bool> HoldsOnlyZeroAndOne(const at::Tensor& tensor) {
  if (!tensor.is_floating_point() || tensor.numel() == 0) return std::nullopt;
  at::RecordFunctionGuard unobserved(/*is_enabled=*/false);
  return tensor.eq(0).logical_or(tensor.eq(1)).all().item<bool>();
}

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  StageOpRecorder::State* state = t_state;
  if (state == nullptr || state->depth++ > 0) return nullptr;
  RecordedStageOp op;
  op.op = fn.name();
  op.callstack = torch::jit::currentCallstack();
  const auto schema = fn.operator_schema();
  const c10::ArrayRef<const c10::IValue> stack = fn.inputs();
  const at::Tensor input =
      LargestTensor(Top(stack.data(), stack.size(),
                        schema ? schema->arguments().size() : stack.size()));
  op.input_shape = ShapeOf(input);
  if (input.defined()) {
    op.dtype = DtypeName(input.scalar_type());
    if (state->check_inputs) op.input_is_binary = HoldsOnlyZeroAndOne(input);
  }
  auto clock = std::make_unique<OpClock>();
  clock->index = state->ops.size();
  state->ops.push_back(std::move(op));
  clock->start = std::chrono::steady_clock::now();  // after the bookkeeping and the check
  return clock;
}

void OnEnd(const at::RecordFunction& fn, at::ObserverContext* context) {
  StageOpRecorder::State* state = t_state;
  if (state == nullptr) return;
  --state->depth;
  auto* clock = static_cast<OpClock*>(context);
  if (clock == nullptr) return;
  RecordedStageOp& op = state->ops[clock->index];
  op.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - clock->start)
              .count();
  const auto schema = fn.operator_schema();
  const std::vector<c10::IValue>& stack = fn.outputs();
  op.output_shape = ShapeOf(LargestTensor(
      Top(stack.data(), stack.size(), schema ? schema->returns().size() : stack.size())));
}

}  // namespace

StageOpRecorder::StageOpRecorder(bool check_inputs) : state_(std::make_unique<State>()) {
  state_->check_inputs = check_inputs;
  t_state = state_.get();
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(&OnStart, &OnEnd)
                                           .needsInputs(true)
                                           .needsOutputs(true)
                                           .scopes({at::RecordScope::FUNCTION}));
}

StageOpRecorder::~StageOpRecorder() {
  at::removeCallback(handle_);
  t_state = nullptr;
}

std::vector<RecordedStageOp> StageOpRecorder::Take() { return std::exchange(state_->ops, {}); }

StageOpSample ResolveStageOp(const RecordedStageOp& recorded, const std::string& stage_method) {
  StageOpSample op;
  op.op = recorded.op;
  op.ms = recorded.ms;
  op.input_shape = recorded.input_shape;
  op.output_shape = recorded.output_shape;
  op.dtype = recorded.dtype;
  op.input_is_binary = recorded.input_is_binary;
  // One entry per function on the way from the stage method to the op, each the function's name
  // and its range there (a call, or in the op's function the op itself). LibTorch 1.13 lists
  // them op first; the stage method's entry, at one end, says which end is which.
  std::vector<torch::jit::StackEntry> stack = recorded.callstack;
  if (!stack.empty() && stack.front().filename == stage_method) {
    std::reverse(stack.begin(), stack.end());
  }
  for (const torch::jit::StackEntry& entry : stack) {
    std::optional<SourceLocation> location = LocationOf(entry.range);
    if (location && !InTorchPackage(location->file)) {
      op.line = std::move(location);
      break;
    }
  }
  // The transform: the function the stage method called on the way, where it is the author's.
  if (stack.size() >= 2 && stack.back().filename == stage_method) {
    const torch::jit::StackEntry& called = stack[stack.size() - 2];
    const std::optional<SourceLocation> body = LocationOf(called.range);
    if (body && !InTorchPackage(body->file)) {
      op.transform = called.filename;
      op.transform_call = LocationOf(stack.back().range);
    }
  }
  return op;
}

}  // namespace advisor
