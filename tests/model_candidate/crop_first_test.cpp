// The crop-first rewrite of an input stage (engine/model_candidate/crop_first.h) on the worker
// tests' stage models: a roll dilation in nested loops under a random crop, behind a branch on a
// string setting that only folding the setting brings to the top (exact, the crop wrapping around
// as roll does), max-pool and convolution passes under a random narrow (padded: the crop clamped to
// the image), and a whole-image mean and a roll followed by padding that keep the crop where it
// is.
#include "engine/model_candidate/crop_first.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/model_candidate/numerics.h"
#include "engine/torch/input_stage.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/seeded_method.h"
#include "engine/torch/stage_op_recorder.h"
#include "tests/model_candidate/worker_models.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kSide = 32;  // make_worker_models.py: SIDE, CROP, RADIUS
constexpr int kCrop = 16;
constexpr int kRadius = 2;

// The stage's inputs: images and labels as the workload describes them.
std::vector<torch::Tensor> BaseBatch() {
  torch::manual_seed(7);
  return {2 * torch::randn({4, 3, kSide, kSide}), torch::randint(0, 3, {4})};
}

std::vector<torch::Tensor> StageBatch(const torch::jit::Module& module, const WorkloadSpec& spec,
                                      std::uint64_t seed) {
  return SeededMethod(module, spec).Run(BaseBatch(), seed);
}

// The largest image (last two dims) that `op` ran on while the stage prepared one batch.
std::vector<long long> LargestInputOf(const torch::jit::Module& module, const WorkloadSpec& spec,
                                      const std::string& op) {
  StageOpRecorder recorder(/*check_inputs=*/false);
  StageBatch(module, spec, 1);
  std::vector<long long> largest;
  for (const RecordedStageOp& recorded : recorder.Take()) {
    if (recorded.op != op || recorded.input_shape.size() < 2) continue;
    std::vector<long long> image(recorded.input_shape.end() - 2, recorded.input_shape.end());
    if (largest.empty() || image[0] * image[1] > largest[0] * largest[1]) largest = image;
  }
  return largest;
}

TEST(CropFirst, MovesARollDilationBehindARandomCropAndKeepsEveryBatchExactly) {
  const std::string& path = testing::Models().crop_roll;
  const WorkloadSpec spec = ReadWorkload(path);
  const torch::jit::Module original = LoadModule(path);
  torch::jit::Module rewritten = LoadModule(path);
  const RewriteOutcome outcome = ApplyCropFirst(rewritten, spec);

  ASSERT_EQ(outcome.sites, 1) << outcome.why_no_site;
  EXPECT_THAT(outcome.module_paths, ElementsAre("(root)"));
  ASSERT_EQ(outcome.methods.size(), 1u);
  EXPECT_EQ(outcome.methods[0].method, "prepare_batch");
  EXPECT_NE(outcome.methods[0].before, outcome.methods[0].after);

  // The random gain, radius and crop offsets keep their values and their order: every batch is
  // the same, bit for bit (roll wraps around the widened crop as it wraps around the image).
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const std::vector<torch::Tensor> expected = StageBatch(original, spec, seed);
    const std::vector<torch::Tensor> actual = StageBatch(rewritten, spec, seed);
    ASSERT_EQ(actual.size(), expected.size());
    EXPECT_THAT(actual[0].sizes().vec(), ElementsAre(4, 4, kCrop, kCrop));
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(torch::equal(actual[i], expected[i])) << "seed " << seed << ", tensor " << i;
    }
  }
  // The dilation ran on the whole image before; now on the crop and the dilation's reach (the
  // loop over range(-r, r + 1) bounds it by r + 1).
  EXPECT_THAT(LargestInputOf(original, spec, "aten::roll"), ElementsAre(kSide, kSide));
  const std::vector<long long> moved = LargestInputOf(rewritten, spec, "aten::roll");
  ASSERT_EQ(moved.size(), 2u);
  EXPECT_LE(moved[0], kCrop + 2 * (kRadius + 1));
  EXPECT_LE(moved[1], kCrop + 2 * (kRadius + 1));
}

TEST(CropFirst, TheSavedRewriteLoadsAndPreparesTheSameBatches) {
  const std::string& path = testing::Models().crop_roll;
  const WorkloadSpec spec = ReadWorkload(path);
  torch::jit::Module rewritten = LoadModule(path);
  ASSERT_EQ(ApplyCropFirst(rewritten, spec).sites, 1);
  testing::ScratchDir dir;
  SaveModel(rewritten, path, dir / "fixed.pt");

  const torch::jit::Module reloaded = LoadModule(dir / "fixed.pt");
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    EXPECT_TRUE(torch::equal(StageBatch(reloaded, spec, seed)[0],
                             StageBatch(LoadModule(path), spec, seed)[0]))
        << "seed " << seed;
  }
  EXPECT_LT(LargestInputOf(reloaded, spec, "aten::roll")[0], kSide);
}

TEST(CropFirst, WidensTheCropByPaddedOpsReachWithinTheReorderingTolerance) {
  const std::string& path = testing::Models().crop_pool;
  const WorkloadSpec spec = ReadWorkload(path);
  const torch::jit::Module original = LoadModule(path);
  torch::jit::Module rewritten = LoadModule(path);
  const RewriteOutcome outcome = ApplyCropFirst(rewritten, spec);
  ASSERT_EQ(outcome.sites, 1) << outcome.why_no_site;

  StepSnapshot expected, actual;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const std::vector<torch::Tensor> before = StageBatch(original, spec, seed);
    const std::vector<torch::Tensor> after = StageBatch(rewritten, spec, seed);
    // The closed mask (max-pooling: no arithmetic) is exact; the blur sums in another order.
    EXPECT_TRUE(torch::equal(after[0].select(1, 3), before[0].select(1, 3))) << "seed " << seed;
    expected.tensors.push_back({"batch", before[0]});
    actual.tensors.push_back({"batch", after[0]});
  }
  const NumericsComparison comparison =
      CompareSnapshots(expected, actual, ToleranceClass::kReordering);
  EXPECT_TRUE(comparison.within_tolerance) << comparison.worst;

  // Four pooling passes of reach 1 and the blur's 1: the crop widened by 2 + 3 = 5 at most.
  EXPECT_THAT(LargestInputOf(original, spec, "aten::max_pool2d"), ElementsAre(kSide, kSide));
  const std::vector<long long> pooled = LargestInputOf(rewritten, spec, "aten::max_pool2d");
  ASSERT_EQ(pooled.size(), 2u);
  EXPECT_LE(pooled[0], kCrop + 2 * 5);
  EXPECT_LT(LargestInputOf(rewritten, spec, "aten::conv2d")[0], kSide);
}

TEST(CropFirst, SaysWhyACropAfterAWholeImageMeanCannotMove) {
  const std::string& path = testing::Models().crop_mean;
  torch::jit::Module module = LoadModule(path);
  const RewriteOutcome outcome = ApplyCropFirst(module, ReadWorkload(path));
  EXPECT_EQ(outcome.sites, 0);
  EXPECT_THAT(outcome.why_no_site, HasSubstr("aten::mean"));
  EXPECT_THAT(outcome.why_no_site, HasSubstr("is not a transform the rewrite can move"));
  EXPECT_TRUE(outcome.methods.empty());
}

TEST(CropFirst, LeavesACropWhereRollAndPaddingMeetTheBorder) {
  const std::string& path = testing::Models().crop_mixed;
  torch::jit::Module module = LoadModule(path);
  const RewriteOutcome outcome = ApplyCropFirst(module, ReadWorkload(path));
  EXPECT_EQ(outcome.sites, 0);
  EXPECT_THAT(outcome.why_no_site, HasSubstr("aten::max_pool2d"));
  EXPECT_THAT(outcome.why_no_site, HasSubstr("pads the border where roll wraps it around"));
}

TEST(CropFirst, NeedsAnInputStage) {
  const std::string& path = testing::Models().plain;
  torch::jit::Module module = LoadModule(path);
  const RewriteOutcome outcome = ApplyCropFirst(module, ReadWorkload(path));
  EXPECT_EQ(outcome.sites, 0);
  EXPECT_EQ(outcome.why_no_site, "the workload has no input stage");
}

}  // namespace
}  // namespace advisor
