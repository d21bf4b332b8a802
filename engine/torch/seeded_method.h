// The input stage's scripted method (workload.json "input_stage.method"), made reproducible: a
// private copy of its graph whose random ops (torch.rand, randn, randint, randperm, bernoulli,
// normal, uniform_, ...) all draw from a generator passed with each call. Each batch is then a
// function of (seed, batch index) alone, whichever worker thread prepares it and however many
// there are, so a baseline and a candidate with other workers see the same batches.
// TorchScript on LibTorch 1.13 cannot name torch.Generator in a signature, hence the graph copy.
#pragma once

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/workload/workload_spec.h"

namespace advisor {

// The method does not fit the workload. what() is one line that starts with the field, e.g.
// `input_stage.method "prepare_batch": returns a Tensor, expected a tuple of 2 tensors ...`.
class InputStageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SeededMethod {
 public:
  // Checks the method against spec.inputs and spec.target (throws InputStageError).
  SeededMethod(const torch::jit::Module& module, const WorkloadSpec& spec);

  // Runs the method on `tensors` (the inputs, then the target) with gradients off, its random
  // ops seeded with `seed`; returns the batch in the same order. Safe to call from many threads.
  std::vector<torch::Tensor> Run(const std::vector<torch::Tensor>& tensors,
                                 std::uint64_t seed) const;
  const std::string& where() const { return where_; }

 private:
  std::string where_;  // `input_stage.method "NAME"`, for errors
  std::size_t arity_ = 0;
  torch::jit::Module module_;
  std::shared_ptr<torch::jit::GraphFunction> function_;
};

// "" when the module's input-stage method fits `spec` (or it has no input stage); otherwise the
// one-line problem, as InputStageError says it.
std::string InputStageProblem(const torch::jit::Module& module, const WorkloadSpec& spec);

}  // namespace advisor
