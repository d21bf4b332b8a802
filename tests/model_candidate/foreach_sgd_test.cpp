// The foreach SGD (engine/torch/foreach_sgd.h) against torch::optim::SGD: the same update rule,
// step after step, directly and as the workload's optimizer inside TrainingStep.
#include "engine/torch/foreach_sgd.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/torch/model_archive.h"
#include "engine/torch/training_step.h"
#include "tests/model_candidate/worker_models.h"

namespace advisor {
namespace {

// The largest |a - b| relative to the largest magnitude, as the numerics check measures it.
double RelativeDifference(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = std::max(a.abs().max().item<double>(), b.abs().max().item<double>());
  return (a - b).abs().max().item<double>() / std::max(scale, 1e-30);
}

std::vector<torch::Tensor> ParametersOf(TrainingStep& step) {
  std::vector<torch::Tensor> parameters;
  for (const torch::Tensor& parameter : step.module().parameters()) parameters.push_back(parameter);
  return parameters;
}

std::vector<torch::Tensor> CopiesOf(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> copies;
  for (const torch::Tensor& tensor : tensors) {
    copies.push_back(tensor.detach().clone().set_requires_grad(tensor.requires_grad()));
  }
  return copies;
}

// A two-layer net written with the parameters as plain tensors, so that two copies can be trained
// side by side. The last parameter is never used: it gets no gradient and must not move.
torch::Tensor Loss(const std::vector<torch::Tensor>& p, const torch::Tensor& x,
                   const torch::Tensor& y) {
  const torch::Tensor hidden = torch::tanh(torch::addmm(p[1], x, p[0]));
  return torch::nn::functional::cross_entropy(torch::addmm(p[3], hidden, p[2]), y);
}

TEST(ForeachSgd, MatchesTorchSgdStepByStep) {
  torch::manual_seed(0);
  const std::vector<torch::Tensor> initial = {
      torch::randn({6, 16}).requires_grad_(), torch::randn({16}).requires_grad_(),
      torch::randn({16, 3}).requires_grad_(), torch::randn({3}).requires_grad_(),
      torch::randn({5}).requires_grad_()};
  const torch::Tensor x = torch::randn({8, 6});
  const torch::Tensor y = torch::randint(0, 3, {8});
  std::vector<torch::Tensor> reference = CopiesOf(initial);
  std::vector<torch::Tensor> foreach = CopiesOf(initial);
  const double lr = 0.05, momentum = 0.9, weight_decay = 1e-2;
  torch::optim::SGD sgd(reference,
                        torch::optim::SGDOptions(lr).momentum(momentum).weight_decay(weight_decay));
  ForeachSgd foreach_sgd(foreach, lr, momentum, weight_decay);

  for (int step = 0; step < 6; ++step) {
    sgd.zero_grad();
    foreach_sgd.zero_grad();
    const torch::Tensor reference_loss = Loss(reference, x, y);
    const torch::Tensor foreach_loss = Loss(foreach, x, y);
    EXPECT_LE(RelativeDifference(reference_loss, foreach_loss), 1e-6) << "step " << step;
    reference_loss.backward();
    foreach_loss.backward();
    sgd.step();
    foreach_sgd.step();
  }
  for (std::size_t i = 0; i < initial.size(); ++i) {
    EXPECT_LE(RelativeDifference(reference[i], foreach[i]), 1e-6) << "parameter " << i;
  }
  EXPECT_GT(RelativeDifference(initial[0], foreach[0]), 1e-3) << "six steps moved nothing";
  EXPECT_TRUE(torch::equal(foreach[4], initial[4])) << "a parameter without gradient moved";
  ASSERT_EQ(foreach_sgd.momentum_buffers().size(), initial.size());
  EXPECT_TRUE(foreach_sgd.momentum_buffers()[0].defined());
  EXPECT_FALSE(foreach_sgd.momentum_buffers()[4].defined());
}

TEST(ForeachSgd, WithoutMomentumIsPlainGradientDescent) {
  torch::Tensor parameter = torch::tensor({1.0f, -2.0f}).requires_grad_();
  ForeachSgd sgd({parameter}, 0.5, 0.0, 0.0);
  parameter.mutable_grad() = torch::tensor({0.2f, 0.4f});
  sgd.step();
  EXPECT_TRUE(torch::allclose(parameter, torch::tensor({0.9f, -2.2f})));
  EXPECT_FALSE(sgd.momentum_buffers()[0].defined());
}

// Trains the tests' plain model 4 steps with the per-parameter SGD and with its foreach twin on
// `device`, and returns the largest relative parameter difference and the largest loss difference.
struct SideBySide {
  double parameters = 0;
  double loss = 0;
};

SideBySide TrainBothOptimizers(const std::string& device) {
  torch::jit::setGraphExecutorOptimize(false);
  WorkloadSpec per_parameter = ReadWorkload(testing::Models().plain);
  per_parameter.device = device;
  EXPECT_EQ(per_parameter.optimizer.name, "sgd");
  EXPECT_GT(per_parameter.optimizer.momentum, 0);
  WorkloadSpec foreach = per_parameter;
  foreach
    .optimizer.foreach = true;

  ApplyGlobalSettings(per_parameter);
  TrainingStep reference(LoadModule(testing::Models().plain), per_parameter);
  ApplyGlobalSettings(foreach);
  TrainingStep candidate(LoadModule(testing::Models().plain), foreach);
  SideBySide difference;
  for (int step = 0; step < 4; ++step) {
    reference.Run(step, false);
    candidate.Run(step, false);
    difference.loss =
        std::max(difference.loss, std::abs(reference.last_loss() - candidate.last_loss()));
  }
  const std::vector<torch::Tensor> expected = ParametersOf(reference);
  const std::vector<torch::Tensor> actual = ParametersOf(candidate);
  EXPECT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
    difference.parameters =
        std::max(difference.parameters, RelativeDifference(expected[i], actual[i]));
  }
  return difference;
}

// The workload's "foreach": true trains the scripted model as the per-parameter SGD does.
TEST(ForeachSgd, AsTheWorkloadOptimizerTrainsLikeTorchSgd) {
  const SideBySide difference = TrainBothOptimizers("cpu");
  EXPECT_LE(difference.loss, 1e-6);
  EXPECT_LE(difference.parameters, 1e-6);
}

// GPU only: on CUDA the _foreach_ ops run their multi-tensor kernels, which may round differently
// from the per-parameter ones, but well within the reordering tolerance (1e-3 for float32).
TEST(ForeachSgd, OnCudaStaysWithinTheReorderingTolerance) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  EXPECT_LE(TrainBothOptimizers("cuda").parameters, 1e-4);
}

}  // namespace
}  // namespace advisor
