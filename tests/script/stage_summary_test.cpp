// A script's input stage records summarised for one window: the batches it overlapped, one
// batch's time, each transform's median and share, lines scaled from their traced items, the
// workers' busy share, and where each transform is pointed at in the user's code.
#include "engine/script/stage_summary.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

constexpr TimeNs kMs = 1'000'000;

SourceLocation At(int line, const std::string& text = "") { return {"train.py", line, text}; }

// Two workers; batches of 8 items that take 40 ms (38 of them in the items), 30 in the dilation
// and 2 in the crop; two items of each batch line-traced, a quarter of the items' time.
StageRecords Pipeline() {
  StageRecords records;
  records.workers = 2;
  records.cores = 16;
  records.output_shape = {4, 224, 224};
  records.output_dtype = "float32";
  StageTransform dilation{"RandomDilation", At(39),    At(29), {1, 256, 256},
                          {1, 256, 256},    "float32", true};
  StageTransform crop{"RandomCrop", At(51), At(29), {3, 256, 256}, {3, 224, 224}, "float32", false};
  StageTransform collate{"default_collate", std::nullopt, std::nullopt, {},
                         {8, 4, 224, 224},  "",           std::nullopt};
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
    batch.items_ns = 38 * kMs;
    batch.transforms = {{0, 30 * kMs}, {1, 2 * kMs}, {2, 4 * kMs}};
    batch.sampled_items = 2;
    batch.sampled_ns = 38 * kMs / 4;
    // In the traced items: 7 ms in the convolution, 0.5 ms drawing the images, 2 us looping.
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

TEST(ScriptStageSummary, NamesTheHeaviestTransformWithItsShareOfTheBatch) {
  const auto profile = SummariseScriptStage(Pipeline(), 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->batches, 6);
  EXPECT_DOUBLE_EQ(profile->batch_ms, 40.0);
  EXPECT_EQ(profile->cores, 16);
  EXPECT_EQ(profile->output_shape, (std::vector<long long>{4, 224, 224}));
  ASSERT_GE(profile->pieces.size(), 2u);
  EXPECT_EQ(profile->pieces[1].name, "torch.conv2d")
      << "its line: 7 ms x 4 = 28 ms, the heaviest piece after the transform holding it";
  const InputStagePiece* dilation = &profile->pieces[0];
  EXPECT_EQ(dilation->name, "RandomDilation");
  EXPECT_EQ(dilation->kind, "transform");
  EXPECT_DOUBLE_EQ(dilation->ms, 30.0);
  EXPECT_DOUBLE_EQ(dilation->share, 0.75);
  EXPECT_EQ(dilation->input_is_binary, true);
  EXPECT_EQ(dilation->dtype, "float32");
}

TEST(ScriptStageSummary, HeaviestFirst) {
  const auto profile = SummariseScriptStage(Pipeline(), 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  for (std::size_t i = 1; i < profile->pieces.size(); ++i) {
    EXPECT_GE(profile->pieces[i - 1].ms, profile->pieces[i].ms) << i;
  }
}

TEST(ScriptStageSummary, LinesAreScaledFromTheirTracedItemsToABatch) {
  const auto profile = SummariseScriptStage(Pipeline(), 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  const InputStagePiece* conv = Find(*profile, "torch.conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->kind, "line");
  ASSERT_TRUE(conv->source.has_value());
  EXPECT_EQ(conv->source->line, 43);
  EXPECT_EQ(conv->source->text, "grown = F.conv2d(mask, kernel)");
  EXPECT_DOUBLE_EQ(conv->ms, 28.0);
  EXPECT_DOUBLE_EQ(conv->share, 0.7);
  EXPECT_EQ(Find(*profile, "for transform in self.transforms:"), nullptr)
      << "8 us of 40 ms: below the 1% that the report shows";
}

TEST(ScriptStageSummary, LinesScaleByTheTimeOfTheTracedItemsNotTheirCount) {
  // The two traced items happened to be cheap ones (a small radius): 4 ms of the items' 38,
  // 3 of them in the convolution. By count the line would be 3 x 4 = 12 ms a batch; by time it
  // is 3/4 of the items' time.
  StageRecords records = Pipeline();
  for (StageBatch& batch : records.batches) {
    batch.sampled_ns = 4 * kMs;
    batch.lines = {{0, 3 * kMs}};
  }
  const auto profile = SummariseScriptStage(records, 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_DOUBLE_EQ(Find(*profile, "torch.conv2d")->ms, 28.5);
}

TEST(ScriptStageSummary, BatchesWithoutTracedItemsLeaveTheLinesAlone) {
  StageRecords records = Pipeline();
  for (std::size_t b = 2; b < records.batches.size(); ++b) {
    records.batches[b].sampled_items = 0;  // the worker traced its quota of items already
    records.batches[b].lines.clear();
  }
  const auto profile = SummariseScriptStage(records, 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_DOUBLE_EQ(Find(*profile, "torch.conv2d")->ms, 28.0);
  EXPECT_DOUBLE_EQ(Find(*profile, "RandomDilation")->ms, 30.0);
}

TEST(ScriptStageSummary, ATransformIsPointedAtByItsCallUnlessThatLineCallsOthersToo) {
  StageRecords records = Pipeline();
  auto profile = SummariseScriptStage(records, 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(Find(*profile, "RandomDilation")->source->line, 39) << "a Compose's loop calls both";
  EXPECT_FALSE(Find(*profile, "default_collate")->source.has_value());
  records.transforms[1].called_at = At(71);
  profile = SummariseScriptStage(records, 0, 120 * kMs);
  EXPECT_EQ(Find(*profile, "RandomDilation")->source->line, 29);
  EXPECT_EQ(Find(*profile, "RandomCrop")->source->line, 71);
}

TEST(ScriptStageSummary, OnlyTheBatchesTheWindowOverlapsCountAndTheWorkersBusyShare) {
  // The window covers 50..90 ms: batches 2 and 3 (40..80) and 4 and 5 (80..120) overlap it.
  StageRecords records = Pipeline();
  records.batches[4].transforms = {{0, 90 * kMs}};
  const auto profile = SummariseScriptStage(records, 50 * kMs, 90 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(profile->batches, 4);
  ASSERT_TRUE(profile->worker_busy_share.has_value());
  EXPECT_DOUBLE_EQ(*profile->worker_busy_share, 1.0) << "both workers busy the whole window";
  EXPECT_FALSE(SummariseScriptStage(records, 500 * kMs, 600 * kMs).has_value());
}

TEST(ScriptStageSummary, WorkersIdleHalfTheWindow) {
  StageRecords records = Pipeline();
  records.batches.resize(2);  // both workers' first batches, 0..40 ms
  const auto profile = SummariseScriptStage(records, 0, 80 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_DOUBLE_EQ(*profile->worker_busy_share, 0.5);
}

TEST(ScriptStageSummary, TheMainProcessWithoutWorkersHasNoBusyShare) {
  StageRecords records = Pipeline();
  records.workers = 0;
  for (StageBatch& batch : records.batches) batch.worker = 0;
  const auto profile = SummariseScriptStage(records, 0, 120 * kMs);
  ASSERT_TRUE(profile.has_value());
  EXPECT_FALSE(profile->worker_busy_share.has_value());
}

}  // namespace
}  // namespace advisor
