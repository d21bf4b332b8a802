// The whole step in a CUDA graph (engine/torch/cuda_graph_step.h, the workload's "cuda_graphs").
// Everything but the refusal on the CPU needs a GPU and is skipped without one.
#include "engine/torch/cuda_graph_step.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "engine/autotest/candidate_result.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/training_step.h"
#include "tests/model_candidate/worker_models.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

double RelativeDifference(const torch::Tensor& a, const torch::Tensor& b) {
  const double scale = std::max(a.abs().max().item<double>(), b.abs().max().item<double>());
  return (a - b).abs().max().item<double>() / std::max(scale, 1e-30);
}

TEST(CudaGraphStep, IsRefusedOnTheCpu) {
  WorkloadSpec spec = ReadWorkload(testing::Models().plain);
  spec.cuda_graphs = true;
  try {
    TrainingStep step(LoadModule(testing::Models().plain), spec);
    ADD_FAILURE() << "a CPU step was captured";
  } catch (const StepError& error) {
    EXPECT_STREQ(error.what(), "cuda_graphs: needs \"device\": \"cuda\"");
  }
}

// GPU only: three replays of the captured step train the plain model as three eager steps do
// (the first replay starts from the initial parameters, as the first eager step does).
void ExpectReplaysTrainLikeEagerSteps(bool foreach_optimizer) {
  torch::jit::setGraphExecutorOptimize(false);
  WorkloadSpec eager = ReadWorkload(testing::Models().plain);
  eager.device = "cuda";
  eager.optimizer.foreach = foreach_optimizer;
  WorkloadSpec graphed = eager;
  graphed.cuda_graphs = true;

  ApplyGlobalSettings(eager);
  TrainingStep reference(LoadModule(testing::Models().plain), eager);
  ApplyGlobalSettings(graphed);
  TrainingStep replayed(LoadModule(testing::Models().plain), graphed);
  for (int step = 0; step < 3; ++step) {
    reference.Run(step, false);
    const StepSpan span = replayed.Run(step, true);
    EXPECT_LT(span.start_ns, span.end_ns);
    ASSERT_EQ(span.phases.size(), 1u) << "a replay is one phase";
    EXPECT_EQ(span.phases.front().phase, Phase::kForward);
    const double expected = reference.last_loss();
    EXPECT_LE(std::abs(replayed.last_loss() - expected), 1e-4 * std::abs(expected))
        << "step " << step;
  }
  std::vector<torch::Tensor> expected;
  for (const torch::Tensor& parameter : reference.module().parameters()) {
    expected.push_back(parameter);
  }
  std::size_t i = 0;
  for (const torch::Tensor& parameter : replayed.module().parameters()) {
    ASSERT_LT(i, expected.size());
    EXPECT_LE(RelativeDifference(expected[i], parameter), 1e-4) << "parameter " << i;
    ++i;
  }
  EXPECT_EQ(i, expected.size());
}

TEST(CudaGraphStep, ReplaysTrainLikeEagerSteps) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  ExpectReplaysTrainLikeEagerSteps(false);
}

TEST(CudaGraphStep, ReplaysWithTheForeachOptimizerTrainLikeEagerSteps) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  ExpectReplaysTrainLikeEagerSteps(true);
}

// GPU only: the worker's own numerics check of the two recipes that keep the computation.
NumericsResult NumericsOnCuda(const std::string& recipe) {
  const testing::ScratchDir dir;
  const std::string result = dir / "numerics.json";
  const ProcessOutcome outcome =
      testing::RunAdvisor({"candidate", testing::Models().plain, "--recipe", recipe, "--numerics",
                           "--device", "cuda", "--result", result});
  if (!outcome.Succeeded()) {
    ADD_FAILURE() << outcome.Describe() << "\n" << outcome.stderr_tail;
    return {};
  }
  return ReadNumericsResult(result);
}

// The loss, the output, and a gradient and an update per parameter: both recipes change the
// optimizer's step, so the check compares its updates too.
int ComparedWithUpdates() {
  return 2 + 2 * static_cast<int>(LoadModule(testing::Models().plain).parameters().size());
}

TEST(CudaGraphStep, CudaGraphsRecipePassesTheNumericsCheck) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  const NumericsResult result = NumericsOnCuda("cuda-graphs");
  EXPECT_EQ(result.skipped, "");
  EXPECT_TRUE(result.within_tolerance) << result.worst;
  EXPECT_EQ(result.compared, ComparedWithUpdates());
}

TEST(CudaGraphStep, FusedOptimizerRecipePassesTheNumericsCheck) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  const NumericsResult result = NumericsOnCuda("fused-optimizer");
  EXPECT_EQ(result.skipped, "");
  EXPECT_TRUE(result.within_tolerance) << result.worst;
  EXPECT_EQ(result.compared, ComparedWithUpdates());
}

}  // namespace
}  // namespace advisor
