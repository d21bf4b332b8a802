// The whole training step captured once in a CUDA graph and replayed (workload "cuda_graphs":
// true). The interface names no CUDA type; where LibTorch has no CUDA (ADVISOR_HAVE_CUDA unset) the
// constructor throws StepError.
//
// Capture, following PyTorch's whole-network example: a few eager warm-up steps on a side stream
// (lazy initialisation, cuBLAS workspaces and the optimizer's momentum buffers happen outside the
// graph), then the parameters, momentum buffers and CUDA RNG state are put back as they were, and
// one step is captured on that stream. The gradients are set to None before the captured step, so
// its backward assigns them into tensors of the graph's private pool, which every replay refills:
// no memset or accumulation kernels, and no host-side zero_grad between replays. Restoring the
// state makes the first replay compute what the first eager step would have (momentum 0 * 0 + d is
// exactly d, the eager first step's copy of d).
//
// Only optimizers without host-side step state can be captured: SGD (torch::optim::SGD or
// ForeachSgd). AdamW's bias correction reads a host step count the graph would freeze; the
// workload check refuses it (WhyStepOptionsDoNotFit).
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

namespace advisor {

class CudaGraphStep {
 public:
  // `whole_step` runs one eager step on the current stream and returns its loss (detached):
  // gradients set to None, forward, loss, backward, optimizer step. `parameters` and `optimizer`
  // are the ones it updates; the inputs and target must be tensors that stay in place.
  CudaGraphStep(std::function<torch::Tensor()> whole_step, std::vector<torch::Tensor> parameters,
                torch::optim::Optimizer& optimizer);
  ~CudaGraphStep();
  CudaGraphStep(const CudaGraphStep&) = delete;
  CudaGraphStep& operator=(const CudaGraphStep&) = delete;

  bool captured() const { return static_loss_.defined(); }

  // Warms up, restores the state and captures; synchronises the device before and after. Hooks
  // registered on the parameters or the module before this call are part of the graph.
  void Capture();

  // Launches the graph on the current stream (asynchronously); returns the loss tensor the graph
  // writes, the same tensor every time.
  torch::Tensor Replay();

 private:
  struct Graph;  // the CUDA objects
  std::function<torch::Tensor()> whole_step_;
  std::vector<torch::Tensor> parameters_;
  torch::optim::Optimizer& optimizer_;
  std::unique_ptr<Graph> graph_;
  torch::Tensor static_loss_;
};

}  // namespace advisor
