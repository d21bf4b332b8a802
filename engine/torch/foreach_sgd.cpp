#include "engine/torch/foreach_sgd.h"

#include <algorithm>

namespace advisor {

ForeachSgd::ForeachSgd(std::vector<torch::Tensor> parameters, double lr, double momentum,
                       double weight_decay)
    : torch::optim::Optimizer(
          parameters, std::make_unique<torch::optim::SGDOptions>(
                          torch::optim::SGDOptions(lr).momentum(momentum).weight_decay(
                              weight_decay))),
      lr_(lr),
      momentum_(momentum),
      weight_decay_(weight_decay),
      momentum_buffers_(parameters.size()) {}

torch::Tensor ForeachSgd::step(LossClosure closure) {
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode enable_grad(true);
    loss = closure();
  }
  // Parameters without a gradient are left alone, as torch::optim::SGD does.
  const std::vector<torch::Tensor>& all = param_groups().front().params();
  std::vector<torch::Tensor> parameters;
  std::vector<torch::Tensor> gradients;
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].grad().defined()) continue;
    parameters.push_back(all[i]);
    gradients.push_back(all[i].grad());
    indices.push_back(i);
  }
  if (parameters.empty()) return loss;

  if (weight_decay_ != 0) {
    gradients = at::_foreach_add(gradients, parameters, at::Scalar(weight_decay_));
  }
  if (momentum_ != 0) {
    const bool started = std::all_of(indices.begin(), indices.end(), [&](std::size_t i) {
      return momentum_buffers_[i].defined();
    });
    std::vector<torch::Tensor> buffers;
    if (started) {
      for (std::size_t i : indices) buffers.push_back(momentum_buffers_[i]);
      at::_foreach_mul_(buffers, at::Scalar(momentum_));
      at::_foreach_add_(buffers, gradients, at::Scalar(1.0));
    } else {
      // A parameter's first step: its buffer starts as a copy of the update.
      for (std::size_t k = 0; k < indices.size(); ++k) {
        torch::Tensor& buffer = momentum_buffers_[indices[k]];
        if (buffer.defined()) {
          buffer.mul_(momentum_).add_(gradients[k]);
        } else {
          buffer = gradients[k].clone().detach();
        }
        buffers.push_back(buffer);
      }
    }
    gradients = std::move(buffers);
  }
  at::_foreach_add_(parameters, gradients, at::Scalar(-lr_));
  return loss;
}

}  // namespace advisor
