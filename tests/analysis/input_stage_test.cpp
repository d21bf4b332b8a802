// The input stage's records summarised for one window: the batches it overlapped, one batch's
// time, each transform's median and share, lines scaled from their traced items, the workers'
// busy share, and where each transform is pointed at in the user's code.
#include "engine/analysis/input_stage.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

constexpr TimeNs kMs = 1'000'000;

SourceLocation At(int line, const std::string& text = "") { return {"train.py", line, text}; }

// Two workers; batches of 8 items that take 40 ms, 30 of them in the dilation and 2 in the crop;
// two items of each batch line-traced.
StageRecords Pipeline() {
  StageRecords records;
  records.workers = 2;
  records.cores = 16;
  records.output_shape = {4, 224, 224};
  records.output_dtype = "float32";
  StageTransform dilation{"RandomDilation", At(39), At(29), {1, 256, 256}, {1, 256, 256},
                          "float32", true};
  StageTransform crop{"RandomCrop", At(51), At(29), {3, 256, 256}, {3, 224, 224}, "float32",
                      false};
  StageTransform collate{"default_collate", std::nullopt, std::nullopt, {}, {8, 4, 224, 224}, "",
                         std::nullopt};
  records.transforms = {dilation, crop, collate};
  records.lines = {{At(43, "grown = F.conv2d(mask, kernel)"), "torch.conv2d"},
                   {At(69, "image = torch.rand(3, 256, 256)"), "torch.rand"},
                   {At(28, "for transform in self.transforms:"), ""}};
  for (int b = 0; b < 6; ++b) {
    StageBatch batch;
    batch.worker = 1 + b % 2;
    batch.start_ns = (b / 2) * 40 * kMs;
    batch.end_ns = batch.start_ns + 40 * kMs;
    batch.items = 8;
    batch.transforms = {{0, 30 * kMs}, {1, 2 * kMs}, {2, 4 * kMs}};
    batch.sampled_items = 2;
    // Per traced item: 3.5 ms in the convolution, 0.25 ms drawing the image, 1 us looping.
    batch.lines = {{0, 7 * kMs}, {1, kMs / 2}, {2, 2'000}};
    records.batches.push_back(batch);
  }
  return records;
}

const InputStagePiece* Find(const InputStageProfile& profile, const std::string& name) {
  for (const InputStagePiece& piece : profile.pieces) {
    if (piece.name == name) return &piece;
  }
  return nullptr;
}

TEST(InputStage, NamesTheHeaviestTransformWithItsShareOfTheBatch) {
  const auto profile = SummariseInputStage(Pipeline(), 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->batches, 6);
  EXPECT_DOUBLE_EQ(profile->batch_ms, 40.0);
  EXPECT_EQ(profile->cores, 16);
  EXPECT_EQ(profile->output_shape, (std::vector<long long>{4, 224, 224}));
  ASSERT_GE(profile->pieces.size(), 2u);
  EXPECT_EQ(profile->pieces[1].name, "torch.conv2d")
      << "its line: 3.5 ms x 8 items = 28 ms, the heaviest piece after the transform holding it";
  const InputStagePiece* dilation = &profile->pieces[0];
  EXPECT_EQ(dilation->name, "RandomDilation");
  EXPECT_EQ(dilation->kind, "transform");
  EXPECT_DOUBLE_EQ(dilation->ms, 30.0);
  EXPECT_DOUBLE_EQ(dilation->share, 0.75);
  EXPECT_EQ(dilation->input_is_binary, true);
  EXPECT_EQ(dilation->dtype, "float32");
}

TEST(InputStage, HeaviestFirst) {
  const auto profile = SummariseInputStage(Pipeline(), 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  for (std::size_t i = 1; i < profile->pieces.size(); ++i) {
    EXPECT_GE(profile->pieces[i - 1].ms, profile->pieces[i].ms) << i;
  }
}

TEST(InputStage, LinesAreScaledFromTheirTracedItemsToABatch) {
  const auto profile = SummariseInputStage(Pipeline(), 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  const InputStagePiece* conv = Find(*profile, "torch.conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->kind, "line");
  ASSERT_TRUE(conv->source.has_value());
  EXPECT_EQ(conv->source->line, 43);
  EXPECT_EQ(conv->source->text, "grown = F.conv2d(mask, kernel)");
  EXPECT_DOUBLE_EQ(conv->ms, 28.0);
  EXPECT_DOUBLE_EQ(conv->share, 0.7);
  EXPECT_NE(Find(*profile, "torch.rand"), nullptr) << "2 ms of 40: above the 2% floor";
  EXPECT_EQ(Find(*profile, "for transform in self.transforms:"), nullptr)
      << "8 us of 40 ms: below the floor";
}

TEST(InputStage, ATransformIsPointedAtByItsCallUnlessThatLineCallsOthersToo) {
  StageRecords records = Pipeline();
  auto profile = SummariseInputStage(records, 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(Find(*profile, "RandomDilation")->source->line, 39) << "a Compose's loop calls both";
  EXPECT_FALSE(Find(*profile, "default_collate")->source.has_value());
  records.transforms[1].called_at = At(71);
  profile = SummariseInputStage(records, 0, 120 * kMs);
  EXPECT_EQ(Find(*profile, "RandomDilation")->source->line, 29);
  EXPECT_EQ(Find(*profile, "RandomCrop")->source->line, 71);
}

TEST(InputStage, OnlyTheBatchesTheWindowOverlapsCountAndTheWorkersBusyShare) {
  // The window covers 50..90 ms: batches 2 and 3 (40..80) and 4 and 5 (80..120) overlap it.
  StageRecords records = Pipeline();
  records.batches[4].transforms = {{0, 90 * kMs}};
  const auto profile = SummariseInputStage(records, 50 * kMs, 90 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->batches, 4);
  ASSERT_TRUE(profile->worker_busy_share.has_value());
  EXPECT_DOUBLE_EQ(*profile->worker_busy_share, 1.0) << "both workers busy the whole window";
  EXPECT_FALSE(SummariseInputStage(records, 500 * kMs, 600 * kMs).has_value());
}

TEST(InputStage, WorkersIdleHalfTheWindow) {
  StageRecords records = Pipeline();
  records.batches.resize(2);  // both workers' first batches, 0..40 ms
  const auto profile = SummariseInputStage(records, 0, 80 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_DOUBLE_EQ(*profile->worker_busy_share, 0.5);
}

TEST(InputStage, TheMainProcessWithoutWorkersHasNoBusyShare) {
  StageRecords records = Pipeline();
  records.workers = 0;
  for (StageBatch& batch : records.batches) batch.worker = 0;
  const auto profile = SummariseInputStage(records, 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_FALSE(profile->worker_busy_share.has_value());
}

}  // namespace
}  // namespace advisor
