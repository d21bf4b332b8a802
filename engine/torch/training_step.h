// One training step of the workload: forward, loss, backward, optimizer step, gradients reset.
// Inputs and targets are made once, from the workload's seed, so every step does the same work;
// with an input stage they are its base, and each step takes its own batch from the stage.
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "engine/timeline/timeline.h"
#include "engine/torch/cuda_graph_step.h"
#include "engine/torch/input_stage.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// A step that failed in the model (a shape it rejects, out of memory); what() is one line that
// names the module that raised where the error says so.
class StepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TrainingStep {
 public:
  // Moves `module` to the workload's device and builds inputs, targets, loss and optimizer.
  TrainingStep(torch::jit::Module module, const WorkloadSpec& spec);

  // Runs one step and returns its host-side phase timestamps. On CUDA each phase ends with a
  // device synchronisation only when `sync_phases` is set (the baseline window's breakdown);
  // the step always ends with one. With cuda_graphs the first call warms up and captures before
  // its span starts, and every span is one replay, whose phases cannot be told apart: forward_end
  // and backward_end are stamped where the replay ends (the loss exists only then), so the
  // forward phase carries the whole step and backward and optimizer are empty.
  StepSpan Run(int index, bool sync_phases);

  // The loss of the last step (synchronises).
  double last_loss() const;
  // The steps run since the last call, and how many of them had a loss that was NaN or infinite.
  // Reads the losses from the device: call it outside profiled windows, where its ops and copy
  // cannot be recorded.
  struct LossCheck {
    int steps = 0;
    int non_finite = 0;
  };
  LossCheck TakeLossCheck();
  // The input stage measured inside between the two calls (InputStage::StartProfile); the stop
  // runs one more batch, so call it once the window's probes have stopped. Nothing without an
  // input stage.
  void StartInputStageProfile();
  std::optional<InputStageProfile> StopInputStageProfile();
  // The input stage's batch `index` (inputs, then target) on the host, prepared apart from the
  // steps' own; empty without an input stage. Throws StepError.
  std::vector<torch::Tensor> StageBatch(std::int64_t index) const;
  torch::jit::Module& module() { return module_; }
  const torch::Device& device() const { return device_; }

 private:
  torch::Tensor Forward();  // forward and loss, under autocast when the workload asks
  torch::Tensor WholeStep();  // gradients dropped, forward, loss, backward, step: the graph's body
  StepSpan ReplayGraph(int index);
  void TakeBatch();  // the input stage's next batch becomes inputs_ and target_
  void Synchronize() const;

  torch::jit::Module module_;
  WorkloadSpec spec_;
  torch::Device device_;
  std::vector<torch::jit::IValue> inputs_;
  torch::Tensor target_;
  torch::Tensor last_loss_;
  std::vector<torch::Tensor> unchecked_losses_;  // since the last TakeLossCheck, on the device
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<CudaGraphStep> graph_;  // null without cuda_graphs; its body calls back into this
  std::unique_ptr<InputStage> input_stage_;  // null without an input stage
};

// Seeds and global switches the workload asks for (deterministic algorithms, seeds).
void ApplyGlobalSettings(const WorkloadSpec& spec);

// One line from a LibTorch error: the cause, without the C++ or TorchScript traceback.
std::string SummarizeTorchError(const std::string& what);

}  // namespace advisor
