// SGD as torch.optim.SGD(foreach=True) runs it: one multi-tensor (_foreach_) op per stage of the
// update over all parameters, instead of torch::optim::SGD's loop of per-parameter ops. LibTorch's
// C++ optimizers have no foreach or fused variant; the workload's "optimizer": {"foreach": true}
// picks this one (the fused-optimizer recipe).
//
// The update is torch::optim::SGD's with dampening 0 and without Nesterov (the workload sets
// neither): d = grad + weight_decay * p; with momentum, buf = d on the first step and
// buf = momentum * buf + d after; p -= lr * (momentum ? buf : d). On the CPU the _foreach_ ops run
// the same per-tensor kernels; on CUDA they launch one kernel per chunk of tensors.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace advisor {

class ForeachSgd : public torch::optim::Optimizer {
 public:
  ForeachSgd(std::vector<torch::Tensor> parameters, double lr, double momentum,
             double weight_decay);

  torch::Tensor step(LossClosure closure = nullptr) override;

  // One per parameter, in order; undefined until that parameter's first step with momentum.
  std::vector<torch::Tensor>& momentum_buffers() { return momentum_buffers_; }

 private:
  double lr_;
  double momentum_;
  double weight_decay_;
  std::vector<torch::Tensor> momentum_buffers_;
};

}  // namespace advisor
