// `advisor candidate` end to end: the result files the autotester reads, from the real binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/autotest/candidate_result.h"
#include "tests/model_candidate/worker_models.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class CandidateCli : public ::testing::Test {
 protected:
  // Runs `advisor candidate MODEL ARGS... --steps 3 --warmup 1 --device cpu --result FILE`.
  ProcessOutcome Run(const std::string& model, std::vector<std::string> arguments) {
    std::vector<std::string> all = {"candidate", model};
    all.insert(all.end(), arguments.begin(), arguments.end());
    all.insert(all.end(),
               {"--steps", "3", "--warmup", "1", "--device", "cpu", "--result", result_});
    return testing::RunAdvisor(all);
  }

  testing::ScratchDir dir_;
  const std::string result_ = dir_ / "result.json";
};

TEST_F(CandidateCli, BaselineWritesAValidResult) {
  const ProcessOutcome outcome = Run(testing::Models().gather, {});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  const CandidateResult result = ReadCandidateResult(result_);
  EXPECT_EQ(result.step_ms.size(), 3u);
  EXPECT_EQ(result.samples_per_step, 4);
  EXPECT_TRUE(result.loss.has_value());
  EXPECT_FALSE(result.peak_memory_mb.has_value()) << "no allocator statistics on the CPU";
  EXPECT_TRUE(result.sites.empty());
}

TEST_F(CandidateCli, RewriteReportsTheModulesItChanged) {
  const ProcessOutcome outcome = Run(testing::Models().gather, {"--recipe", "gather-to-index"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  EXPECT_THAT(ReadCandidateResult(result_).sites,
              ElementsAre("blocks.0.select", "blocks.1.select", "heads", "partial"));
}

TEST_F(CandidateCli, RewriteWithoutASiteIsSkipped) {
  const ProcessOutcome outcome = Run(testing::Models().plain, {"--recipe", "gather-to-index"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  EXPECT_EQ(ReadCandidateResult(result_).skipped,
            "not applicable: gather-to-index found no site in this model");
}

TEST_F(CandidateCli, BatchSizeX2RunsTwiceTheSamples) {
  const ProcessOutcome outcome = Run(testing::Models().gather, {"--recipe", "batch-size-x2"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  EXPECT_EQ(ReadCandidateResult(result_).samples_per_step, 8);
}

TEST_F(CandidateCli, InputStageRecipeIsSkippedWithoutAnInputStage) {
  const ProcessOutcome outcome = Run(testing::Models().gather, {"--recipe", "dataloader-workers"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  EXPECT_THAT(ReadCandidateResult(result_).skipped,
              StartsWith("not applicable: the workload has no host-side input stage"));
}

TEST_F(CandidateCli, NumericsModeComparesTheRewriteWithTheBaseline) {
  const ProcessOutcome outcome =
      Run(testing::Models().gather, {"--recipe", "gather-to-index", "--numerics"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  const NumericsResult result = ReadNumericsResult(result_);
  EXPECT_TRUE(result.within_tolerance) << result.worst;
  EXPECT_EQ(result.compared, 10);
  EXPECT_EQ(result.numerics.tolerance, 1e-3);
  EXPECT_EQ(result.sites.size(), 4u);
}

TEST_F(CandidateCli, NumericsHoldCropFirstToTheStagesBatches) {
  const ProcessOutcome outcome =
      Run(testing::Models().crop_roll, {"--recipe", "crop-first", "--numerics"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  const NumericsResult result = ReadNumericsResult(result_);
  EXPECT_TRUE(result.within_tolerance) << result.worst;
  EXPECT_EQ(result.numerics.max_abs_diff, 0)
      << "roll, maximum and the crop move without arithmetic";
  // Loss, output, 4 gradients (conv and head, weight and bias), then 4 batches of image and label.
  EXPECT_EQ(result.compared, 6 + 4 * 2);
  EXPECT_THAT(result.sites, ElementsAre("(root)"));
  ASSERT_EQ(result.code_changes.size(), 1u);
  EXPECT_EQ(result.code_changes[0].method, "prepare_batch");
  // The gain's multiplication on the whole image goes; the same one on the window comes.
  EXPECT_THAT(result.code_changes[0].diff, HasSubstr("\n-  images0 = torch.mul(images, gain)\n"));
}

TEST_F(CandidateCli, CropFirstSaysWhichOpKeepsTheCropInPlace) {
  const ProcessOutcome outcome = Run(testing::Models().crop_mean, {"--recipe", "crop-first"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  EXPECT_THAT(ReadCandidateResult(result_).skipped,
              StartsWith("not applicable: crop-first: aten::mean"));
}

TEST_F(CandidateCli, UnknownRecipeIsOneClearLine) {
  const ProcessOutcome outcome = Run(testing::Models().gather, {"--recipe", "no-such-recipe"});
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_THAT(outcome.stderr_tail,
              StartsWith("advisor: --recipe: no recipe \"no-such-recipe\" in "));
  EXPECT_EQ(outcome.stderr_tail.find('\n'), outcome.stderr_tail.size() - 1) << outcome.stderr_tail;
}

}  // namespace
}  // namespace advisor
