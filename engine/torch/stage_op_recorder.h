// The input stage's ops on one thread for one batch: a thread-local RecordFunction observer that
// keeps each top-level op's time, largest tensor input and output, and TorchScript call stack
// (the transform and line it ran in). Installed by a worker only around the batches a profile
// measures; the step's own op probe never sees a worker's ops (ExcludeThisThreadFromOpProbe).
#pragma once

#include <torch/csrc/jit/runtime/interpreter.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/input_stage_pieces.h"

namespace advisor {

// One top-level op as recorded, its places not yet resolved (that costs, and is done once the
// window is over).
struct RecordedStageOp {
  std::string op;
  double ms = 0;
  std::vector<torch::jit::StackEntry> callstack;  // torch::jit::currentCallstack() at its start
  std::vector<long long> input_shape;
  std::vector<long long> output_shape;
  std::string dtype;  // DtypeName of the largest input's
  std::optional<bool> input_is_binary;
};

class StageOpRecorder {
 public:
  // Starts recording the calling thread's ops. `check_inputs`: whether each op's largest input
  // is checked for holding only 0 and 1 (a floating-point tensor; the check runs before the op's
  // clock starts, unobserved).
  explicit StageOpRecorder(bool check_inputs);
  ~StageOpRecorder();
  StageOpRecorder(const StageOpRecorder&) = delete;
  StageOpRecorder& operator=(const StageOpRecorder&) = delete;

  // The ops recorded so far; the recorder goes on recording.
  std::vector<RecordedStageOp> Take();

  struct State;

 private:
  std::uint64_t handle_ = 0;
  std::unique_ptr<State> state_;
};

// The sample the engine summarises: the op's line (the innermost of the model author's lines on
// its call stack) and transform (the function of the author's code that `stage_method`, the
// input stage's method, called on the way to the op; none for an op of the method's own code).
StageOpSample ResolveStageOp(const RecordedStageOp& op, const std::string& stage_method);

}  // namespace advisor
