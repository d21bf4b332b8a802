#include "engine/torch/cuda_graph_step.h"

#include "engine/torch/training_step.h"

#ifdef ADVISOR_HAVE_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include <mutex>

#include "engine/torch/foreach_sgd.h"
#endif

namespace advisor {

#ifdef ADVISOR_HAVE_CUDA

namespace {

// Eager steps before the capture: the first allocates momentum buffers and initialises libraries,
// the next ones let the caching allocator and cuBLAS settle, as in PyTorch's example.
constexpr int kWarmupSteps = 3;

// Back to a fresh optimizer, except that the momentum buffers stay allocated (zeroed), so that the
// captured step takes the "buffer exists" branch every replay must take.
void ZeroMomentumBuffers(torch::optim::Optimizer& optimizer) {
  torch::NoGradGuard no_grad;
  if (auto* foreach = dynamic_cast<ForeachSgd*>(&optimizer)) {
    for (torch::Tensor& buffer : foreach->momentum_buffers()) {
      if (buffer.defined()) buffer.zero_();
    }
    return;
  }
  for (auto& entry : optimizer.state()) {
    auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(entry.second.get());
    if (sgd == nullptr) throw StepError("cuda_graphs: only SGD optimizers can be captured");
    if (sgd->momentum_buffer().defined()) sgd->momentum_buffer().zero_();
  }
}

}  // namespace

struct CudaGraphStep::Graph {
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  at::cuda::CUDAGraph graph;
};

CudaGraphStep::CudaGraphStep(std::function<torch::Tensor()> whole_step,
                             std::vector<torch::Tensor> parameters,
                             torch::optim::Optimizer& optimizer)
    : whole_step_(std::move(whole_step)),
      parameters_(std::move(parameters)),
      optimizer_(optimizer),
      graph_(std::make_unique<Graph>()) {}

void CudaGraphStep::Capture() {
  std::vector<torch::Tensor> saved;
  for (const torch::Tensor& parameter : parameters_) saved.push_back(parameter.detach().clone());
  // A handle on the default CUDA generator: the warm-up's random numbers (dropout) are given back.
  at::Generator generator = at::cuda::detail::getDefaultCUDAGenerator();
  torch::Tensor rng_state;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    rng_state = generator.get_state();
  }
  torch::cuda::synchronize();  // the side stream must see the inputs and parameters
  {
    // Capture needs a stream other than the legacy default one; warming up on the same stream
    // gives it its cuBLAS workspace before the capture.
    c10::cuda::CUDAStreamGuard on_side_stream(graph_->stream);
    for (int i = 0; i < kWarmupSteps; ++i) whole_step_();
    graph_->stream.synchronize();
    {
      torch::NoGradGuard no_grad;
      for (std::size_t i = 0; i < parameters_.size(); ++i) parameters_[i].copy_(saved[i]);
    }
    ZeroMomentumBuffers(optimizer_);
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_state(rng_state);
    }
    graph_->stream.synchronize();
    // whole_step_ sets the gradients to None first, so the captured backward assigns them.
    graph_->graph.capture_begin();
    torch::Tensor loss;
    try {
      loss = whole_step_();
    } catch (...) {
      // End the capture so the stream is usable again; the step's own error (an op that
      // synchronises, for one) is the one to report, not capture_end's complaint.
      try {
        graph_->graph.capture_end();
      } catch (const std::exception&) {
      }
      throw;
    }
    graph_->graph.capture_end();
    static_loss_ = loss;
  }
  torch::cuda::synchronize();
}

torch::Tensor CudaGraphStep::Replay() {
  if (!captured()) throw StepError("cuda_graphs: replay before capture");
  graph_->graph.replay();
  return static_loss_;
}

#else  // no CUDA in this LibTorch

struct CudaGraphStep::Graph {};

CudaGraphStep::CudaGraphStep(std::function<torch::Tensor()>, std::vector<torch::Tensor>,
                             torch::optim::Optimizer& optimizer)
    : optimizer_(optimizer) {
  throw StepError("cuda_graphs: this advisor was built against a LibTorch without CUDA");
}

void CudaGraphStep::Capture() {}

torch::Tensor CudaGraphStep::Replay() { return static_loss_; }

#endif

CudaGraphStep::~CudaGraphStep() = default;

}  // namespace advisor
