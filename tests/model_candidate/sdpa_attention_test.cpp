// The sdpa-attention rewrite. aten::scaled_dot_product_attention exists from LibTorch 2.0 and has
// a scale argument from 2.1, so on older LibTorch the rewrite says why it cannot run and the tests
// that apply it are skipped.
#include "engine/model_candidate/sdpa_attention.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/autotest/applicability.h"
#include "engine/model_candidate/numerics.h"
#include "engine/torch/device_info.h"
#include "tests/model_candidate/step_snapshots.h"
#include "tests/model_candidate/worker_models.h"

namespace advisor {
namespace {

using ::testing::ElementsAre;
using ::testing::StartsWith;

TEST(SdpaAttention, IsAvailableExactlyFromLibTorch21) {
  const std::string reason = SdpaUnavailableReason();
  if (VersionAtLeast(TorchVersion(), "2.1")) {
    EXPECT_EQ(reason, "");
  } else {
    EXPECT_THAT(reason, StartsWith("not applicable: LibTorch " + TorchVersion() + " has"));
  }
}

TEST(SdpaAttention, RewritesTheThreeScaleSpellingsButNotAttentionWithDropout) {
  if (!SdpaUnavailableReason().empty()) GTEST_SKIP() << SdpaUnavailableReason();
  torch::jit::Module module = LoadModule(testing::Models().attention);
  const RewriteOutcome outcome = ApplyGraphRewrite(module, SdpaAttentionRewrite());
  EXPECT_EQ(outcome.sites, 3);
  EXPECT_THAT(outcome.module_paths, ElementsAre("layers.0", "layers.1", "layers.2"));
}

TEST(SdpaAttention, KeepsTheStepsNumbersWithinTheReorderingTolerance) {
  if (!SdpaUnavailableReason().empty()) GTEST_SKIP() << SdpaUnavailableReason();
  const WorkloadSpec spec = ReadWorkload(testing::Models().attention);
  const StepSnapshot baseline = testing::SnapshotOf(LoadModule(testing::Models().attention), spec);
  torch::jit::Module rewritten = LoadModule(testing::Models().attention);
  ASSERT_EQ(ApplyGraphRewrite(rewritten, SdpaAttentionRewrite()).sites, 3);
  const StepSnapshot candidate = testing::SnapshotOf(rewritten, spec);
  const NumericsComparison comparison =
      CompareSnapshots(baseline, candidate, ToleranceClass::kReordering);
  EXPECT_TRUE(comparison.within_tolerance) << comparison.worst;
}

}  // namespace
}  // namespace advisor
