#include "engine/autotest/step_blocks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace advisor {
namespace {

using ::testing::HasSubstr;

CandidateSpec WithOverrides(const RecipeOverrides& overrides) {
  CandidateSpec candidate;
  candidate.id = "c";
  candidate.overrides = overrides;
  return candidate;
}

TEST(SwitchesBetweenSteps, OnlyKnobsARunningStepReads) {
  RecipeOverrides flags;
  flags.allow_tf32 = true;
  flags.cudnn_benchmark = true;
  flags.autocast_dtype = std::string("bfloat16");
  EXPECT_TRUE(SwitchesBetweenSteps(WithOverrides(flags)));

  RecipeOverrides workers = flags;
  workers.dataloader_workers = ThreadCount{4};
  EXPECT_FALSE(SwitchesBetweenSteps(WithOverrides(workers))) << "the DataLoader is built once";

  CandidateSpec with_env = WithOverrides(flags);
  with_env.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
  EXPECT_FALSE(SwitchesBetweenSteps(with_env)) << "read when the process starts";

  CandidateSpec rewrite = WithOverrides(flags);
  rewrite.rewrites = {"gather-to-index"};
  EXPECT_FALSE(SwitchesBetweenSteps(rewrite));
  EXPECT_FALSE(SwitchesBetweenSteps(WithOverrides({}))) << "nothing to switch";
}

constexpr char kBlocks[] = R"({"blocks": [
  {"candidate": "tf32", "side": "baseline", "cycle": 0, "step_ms": [20, 21], "peak_memory_mb": 900},
  {"candidate": "tf32", "side": "candidate", "cycle": 0, "step_ms": [10, 11], "peak_memory_mb": 950},
  {"candidate": "tf32", "side": "candidate", "cycle": 1, "step_ms": [12, 10], "peak_memory_mb": null},
  {"candidate": "tf32", "side": "baseline", "cycle": 1, "step_ms": [22, 20]},
  {"candidate": "tf32", "side": "baseline", "cycle": 2, "step_ms": [20, 20]},
  {"candidate": "tf32", "side": "candidate", "cycle": 2, "step_ms": [11]},
  {"candidate": "bf16", "side": "baseline", "cycle": 0, "step_ms": [20, 20]}],
 "complete": false, "samples_per_step": 8, "loss": 2.5, "warmup_s": 1.5})";

TEST(BlocksResult, PairsEachCyclesFullBlocks) {
  const BlocksResult result = ParseBlocksResult(kBlocks, "blocks.json");
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.samples_per_step, 8);
  EXPECT_EQ(result.loss, 2.5);
  const std::vector<AbRound> rounds = CandidateRounds(result, "tf32", 2);
  ASSERT_EQ(rounds.size(), 2u) << "cycle 2's candidate block was cut short";
  EXPECT_EQ(rounds[0].baseline_ms, (std::vector<double>{20, 21}));
  EXPECT_EQ(rounds[0].candidate_ms, (std::vector<double>{10, 11}));
  EXPECT_EQ(rounds[1].baseline_ms, (std::vector<double>{22, 20}));
  EXPECT_TRUE(CandidateRounds(result, "bf16", 2).empty()) << "a baseline block alone";
  EXPECT_EQ(SidePeakMemoryMb(result, "tf32", false), 950);
  EXPECT_EQ(SidePeakMemoryMb(result, "tf32", true), 900);
  EXPECT_FALSE(SidePeakMemoryMb(result, "bf16", false).has_value());
}

TEST(BlocksResult, AMalformedFileNamesTheFileAndTheField) {
  const auto error_of = [](const std::string& text) {
    try {
      ParseBlocksResult(text, "blocks.json");
    } catch (const BlocksResultError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "both", "cycle": 0,
                           "step_ms": [1]}], "complete": true, "samples_per_step": 1,
                           "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].side' must be baseline or candidate"));
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "step_ms": [-1]}], "complete": true, "samples_per_step": 1,
                           "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].step_ms[0]'"));
  EXPECT_THAT(error_of(R"({"blocks": [], "samples_per_step": 1, "loss": 1})"),
              HasSubstr("'complete'"));
  EXPECT_THAT(error_of("[1, 2"), HasSubstr("blocks.json: not valid JSON"));
}

}  // namespace
}  // namespace advisor
