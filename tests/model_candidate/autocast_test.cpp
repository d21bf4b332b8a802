// Autocast around the step (engine/torch/autocast_adapter.h and the workload's "autocast").
#include "engine/torch/autocast_adapter.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "engine/torch/model_archive.h"
#include "engine/torch/training_step.h"
#include "tests/model_candidate/step_snapshots.h"
#include "tests/model_candidate/worker_models.h"

namespace advisor {
namespace {

// The adapter on the CPU, whose autocast runs matrix products in bfloat16 on LibTorch 1.13 and
// 2.x: the region switches it on, nests, and gives the previous state back.
TEST(AutocastRegion, CastsMatrixProductsInsideAndRestoresTheStateAfter) {
  const torch::Tensor a = torch::randn({4, 4});
  const torch::Tensor b = torch::randn({4, 4});
  ASSERT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat32);
  {
    AutocastRegion region(c10::DeviceType::CPU, torch::kBFloat16);
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    { AutocastRegion nested(c10::DeviceType::CPU, torch::kBFloat16); }
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16) << "the nested region ended it";
  }
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat32);
}

TEST(AutocastRegion, NamesTheWorkloadDtypes) {
  EXPECT_EQ(AutocastDtypeOf("bfloat16"), torch::kBFloat16);
  EXPECT_EQ(AutocastDtypeOf("float16"), torch::kFloat16);
  EXPECT_THROW(AutocastDtypeOf("float32"), std::invalid_argument);
}

TEST(AutocastStep, IsRefusedOnTheCpu) {
  WorkloadSpec spec = ReadWorkload(testing::Models().plain);
  spec.autocast = "bfloat16";
  try {
    TrainingStep step(LoadModule(testing::Models().plain), spec);
    ADD_FAILURE() << "a CPU step ran under autocast";
  } catch (const StepError& error) {
    EXPECT_STREQ(error.what(),
                 "autocast: needs \"device\": \"cuda\" (advisor runs autocast on CUDA only)");
  }
}

double FirstLoss(const WorkloadSpec& spec) {
  ApplyGlobalSettings(spec);
  TrainingStep step(LoadModule(testing::Models().plain), spec);
  step.Run(0, false);
  return step.last_loss();
}

// GPU only. The plain model's linear layers run in bfloat16 under autocast (its output is the last
// one's), the gradients of the float32 parameters stay float32, and the loss moves by bfloat16
// rounding: a little, not a lot.
TEST(AutocastStep, Bfloat16OnCudaRunsTheLinearLayersInBfloat16) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  WorkloadSpec fp32 = ReadWorkload(testing::Models().plain);
  fp32.device = "cuda";
  WorkloadSpec bf16 = fp32;
  bf16.autocast = "bfloat16";

  const StepSnapshot snapshot = testing::SnapshotOf(LoadModule(testing::Models().plain), bf16);
  EXPECT_EQ(testing::Named(snapshot, "output").value.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(testing::Named(snapshot, "grad of net.0.weight").value.scalar_type(), torch::kFloat32);

  const double expected = FirstLoss(fp32);
  const double actual = FirstLoss(bf16);
  ASSERT_TRUE(std::isfinite(actual));
  EXPECT_NE(actual, expected) << "no bfloat16 rounding reached the loss";
  EXPECT_LT(std::abs(actual - expected), 5e-2 * std::abs(expected));
}

}  // namespace
}  // namespace advisor
