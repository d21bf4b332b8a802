#include "engine/autotest/step_blocks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

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
  RecipeOverrides attention;
  attention.attn_implementation = std::string("sdpa");
  EXPECT_TRUE(SwitchesBetweenSteps(WithOverrides(attention)))
      << "transformers reads the attention's choice at every forward";

  RecipeOverrides workers = flags;
  workers.dataloader_workers = ThreadCount{4};
  EXPECT_FALSE(SwitchesBetweenSteps(WithOverrides(workers))) << "the DataLoader is built once";

  RecipeOverrides compiled = flags;
  compiled.compile = true;
  EXPECT_TRUE(SwitchesBetweenSteps(WithOverrides(compiled)))
      << "each root keeps its own forward and a compiled one";
  compiled.dataloader_workers = ThreadCount{4};
  EXPECT_FALSE(SwitchesBetweenSteps(WithOverrides(compiled))) << "with a knob that needs a process";

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

// A second run's blocks of one candidate join the first run's after its last cycle: its pairs
// there stay pairs, the other candidates' blocks stay out.
TEST(BlocksResult, ASecondRunsBlocksOfOneCandidateFollowTheFirstRuns) {
  BlocksResult both = ParseBlocksResult(kBlocks, "blocks.json");
  const std::size_t first_blocks = both.blocks.size();
  AppendBlocksOf(ParseBlocksResult(kBlocks, "blocks-wide.json"), "tf32", both);
  ASSERT_EQ(both.blocks.size(), first_blocks + 6) << "tf32's six blocks, not bf16's";
  EXPECT_EQ(both.blocks.back().cycle, 2 + 3);
  const std::vector<AbRound> rounds = CandidateRounds(both, "tf32", 2);
  ASSERT_EQ(rounds.size(), 4u) << "cycles 0 and 1 of each run";
  EXPECT_EQ(rounds[2].baseline_ms, rounds[0].baseline_ms);
  EXPECT_EQ(rounds[3].candidate_ms, rounds[1].candidate_ms);
}

// A compiled candidate's first block compiles in its settle steps: reported apart from the timed
// steps, from its earliest cycle's candidate block whatever the order of the file.
TEST(BlocksResult, TheFirstCandidateBlocksSettleStepsAreItsCompile) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [
    {"candidate": "compile", "side": "baseline", "cycle": 0, "settle_ms": [9, 9],
     "step_ms": [20]},
    {"candidate": "compile", "side": "candidate", "cycle": 1, "settle_ms": [8, 8],
     "step_ms": [10]},
    {"candidate": "compile", "side": "candidate", "cycle": 0, "settle_ms": [2500, 10],
     "step_ms": [10]},
    {"candidate": "tf32", "side": "candidate", "cycle": 0, "step_ms": [10]}],
    "complete": true, "samples_per_step": 8, "loss": 2.5})",
                                                "blocks.json");
  EXPECT_EQ(result.blocks[0].settle_ms, (std::vector<double>{9, 9}));
  EXPECT_EQ(FirstSettleS(result, "compile", 2), 2.51);
  EXPECT_FALSE(FirstSettleS(result, "tf32", 2).has_value()) << "an older probe's block says none";
  EXPECT_FALSE(FirstSettleS(result, "bf16", 2).has_value());
  EXPECT_EQ(result.loader_queue, 0) << "no DataLoader's queue drained";
}

// Where a DataLoader with workers feeds the steps, a block whose side may be faster than the block
// before it leaves out as many more steps as the batches the loader holds ready, and each timed
// step's wait for its batch is timed: the settle steps that drained the queue are no compile, the
// blocks differ in length, and each side's wait is its blocks' mean.
TEST(BlocksResult, TheLoadersQueueIsDrainedAfterSlowerStepsAndItsWaitsAveragedBySide) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [
    {"candidate": "compile", "side": "baseline", "cycle": 0, "settle_ms": [100, 100],
     "step_ms": [100, 100], "loader_wait_ms": [0, 1]},
    {"candidate": "compile", "side": "candidate", "cycle": 0, "settle_ms": [2500, 20, 20, 40],
     "step_ms": [40, 40], "loader_wait_ms": [20, 22]},
    {"candidate": "compile", "side": "candidate", "cycle": 1, "settle_ms": [20, 40],
     "step_ms": [40, 42], "loader_wait_ms": [20, 18]},
    {"candidate": "compile", "side": "candidate", "cycle": 2, "step_ms": [2],
     "loader_wait_ms": [2]}],
    "complete": true, "samples_per_step": 8, "loss": 2.5, "settle": 2, "loader_queue": 2})",
                                                "blocks.json");
  EXPECT_EQ(result.loader_queue, 2);
  EXPECT_EQ(DrainedBlocks(result, 2), 1)
      << "only the candidate's first block followed slower steps";
  EXPECT_EQ(FirstSettleS(result, "compile", 2), 2.52) << "the compile and a step, not the drain";
  EXPECT_EQ(SideLoaderWaitMs(result, "compile", /*baseline=*/false, 2), 20.0)
      << "cycle 2's block was cut short";
  EXPECT_EQ(SideLoaderWaitMs(result, "compile", /*baseline=*/true, 2), 0.5);
  EXPECT_FALSE(SideLoaderWaitMs(ParseBlocksResult(kBlocks, "blocks.json"), "tf32", false, 2))
      << "no DataLoader fed the steps";
  EXPECT_FALSE(result.epoch_batches.has_value()) << "the loader's length was not told";
}

// A timed step whose batch began an epoch waited for a worker to make it from an empty queue: the
// steps that did are kept per block, and each side's wait at them reported apart.
TEST(BlocksResult, TheStepsThatBeganAnEpochAndTheirWaitsBySide) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [
    {"candidate": "bf16", "side": "baseline", "cycle": 0, "step_ms": [170, 170, 360],
     "loader_wait_ms": [0.2, 0.1, 190], "epoch_starts": [2]},
    {"candidate": "bf16", "side": "candidate", "cycle": 0, "step_ms": [45, 45, 45],
     "loader_wait_ms": [8, 9, 10], "epoch_starts": []},
    {"candidate": "bf16", "side": "candidate", "cycle": 1, "step_ms": [250, 45, 245],
     "loader_wait_ms": [200, 9, 210], "epoch_starts": [0, 2]},
    {"candidate": "bf16", "side": "candidate", "cycle": 2, "step_ms": [400],
     "loader_wait_ms": [380], "epoch_starts": [0]}],
    "complete": false, "samples_per_step": 8, "loss": 2.5, "loader_queue": 12,
    "epoch_batches": 64})",
                                                "blocks.json");
  EXPECT_EQ(result.epoch_batches, 64);
  EXPECT_EQ(result.blocks[2].epoch_starts, (std::vector<int>{0, 2}));
  const EpochStartWaits candidate = SideEpochStartWaits(result, "bf16", /*baseline=*/false, 3);
  EXPECT_EQ(candidate.steps, 2) << "cycle 2's block was cut short";
  EXPECT_EQ(candidate.mean_ms, 205.0);
  const EpochStartWaits baseline = SideEpochStartWaits(result, "bf16", /*baseline=*/true, 3);
  EXPECT_EQ(baseline.steps, 1);
  EXPECT_EQ(baseline.mean_ms, 190.0);
  const EpochStartWaits none = SideEpochStartWaits(result, "tf32", /*baseline=*/true, 3);
  EXPECT_EQ(none.steps, 0);
  EXPECT_FALSE(none.mean_ms.has_value());
}

// On a GPU the steps are the device's and the waits the host's: a host that ran ahead waits for a
// batch while the device still runs the steps before, longer than its own step's device time (an
// epoch's start on the H200: 346.7 ms of waiting in a step of 346.2, which refused the whole run).
TEST(BlocksResult, AHostsWaitMayOutlastItsStepsDeviceTime) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [
    {"candidate": "bf16", "side": "candidate", "cycle": 0, "settle_ms": [41, 40],
     "step_ms": [40, 346.2, 42], "loader_wait_ms": [0.3, 346.7, 0.2], "epoch_starts": [1]}],
    "complete": true, "samples_per_step": 8, "loss": 1, "loader_queue": 12,
    "epoch_batches": 64})",
                                                "blocks.json");
  EXPECT_EQ(result.blocks[0].loader_wait_ms, (std::vector<double>{0.3, 346.7, 0.2}));
}

// An epoch's start is the loader's: its first batch's extra wait is read over the whole run,
// whichever side crossed it. What a long run pays for it differs by side: the device idles only
// for the part of the wait beyond the lead its host kept, so each side's pairs leave out the
// steps that began an epoch and count that side's cost once an epoch.
TEST(BlocksResult, AnEpochsStartCostsEachSideItsWaitBeyondItsHostsLead) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [
    {"candidate": "bf16", "side": "baseline", "cycle": 0, "step_ms": [170, 170, 270],
     "loader_wait_ms": [2, 2, 302], "epoch_starts": [2], "host_lead_ms": 150},
    {"candidate": "bf16", "side": "candidate", "cycle": 0, "step_ms": [40, 50, 45],
     "loader_wait_ms": [2, 2, 2], "host_lead_ms": 0},
    {"candidate": "bf16", "side": "candidate", "cycle": 1, "step_ms": [45, 45, 345],
     "loader_wait_ms": [2, 2, 302], "epoch_starts": [2]},
    {"candidate": "bf16", "side": "baseline", "cycle": 1, "step_ms": [170, 170, 170],
     "loader_wait_ms": [2, 2, 2], "host_lead_ms": 50},
    {"candidate": "tf32", "side": "baseline", "cycle": 0, "step_ms": [400],
     "loader_wait_ms": [390], "epoch_starts": [0]}],
    "complete": true, "samples_per_step": 8, "loss": 1, "loader_queue": 12,
    "epoch_batches": 100, "epoch_start_waits_ms": [302, 302, 390, 214]})",
                                                "blocks.json");
  EXPECT_EQ(result.blocks[0].host_lead_ms, 150.0);
  EXPECT_FALSE(result.blocks[2].host_lead_ms) << "its next batch began an epoch";
  const std::optional<EpochStart> start = EpochStartOf(result);
  ASSERT_TRUE(start.has_value());
  EXPECT_DOUBLE_EQ(start->extra_wait_ms, 300.0)
      << "a start waited 302 ms, the timed steps beside none 2 (tf32's start is no step's usual)";
  EXPECT_EQ(start->starts, 4) << "every start after the warm-up, timed or not";
  EXPECT_EQ(start->epoch_batches, 100);

  const EpochStartShares shares = EpochStartSharesOf(*start, result, "bf16", 3);
  EXPECT_DOUBLE_EQ(shares.baseline.host_lead_ms, 100.0) << "the median of 150 and 50";
  EXPECT_DOUBLE_EQ(shares.baseline.cost_ms, 200.0);
  EXPECT_DOUBLE_EQ(shares.candidate.host_lead_ms, 0.0);
  EXPECT_DOUBLE_EQ(shares.candidate.cost_ms, 300.0)
      << "a host that kept no lead pays the whole wait";
  EXPECT_DOUBLE_EQ(shares.PerStepMs(/*baseline_side=*/true), 2.0) << "200 ms over 100 batches";
  EXPECT_DOUBLE_EQ(shares.PerStepMs(/*baseline_side=*/false), 3.0);

  const std::vector<AbRound> rounds = CandidateRounds(result, "bf16", 3, shares);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0].baseline_ms, (std::vector<double>{172, 172})) << "its start left out";
  EXPECT_EQ(rounds[0].candidate_ms, (std::vector<double>{43, 53, 48}));
  EXPECT_EQ(rounds[1].candidate_ms, (std::vector<double>{48, 48}));
  EXPECT_EQ(rounds[1].baseline_ms, (std::vector<double>{172, 172, 172}));
  EXPECT_EQ(CandidateRounds(result, "bf16", 3)[0].baseline_ms, (std::vector<double>{170, 170, 270}))
      << "without the epoch's start, the steps as timed";
}

// On the host's clock (a CPU run) no lead is reported, and each side pays the whole wait.
TEST(BlocksResult, WithoutALeadEachSidePaysTheWholeWait) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [
    {"candidate": "c", "side": "baseline", "cycle": 0, "step_ms": [100, 100],
     "loader_wait_ms": [0, 0]}],
    "complete": true, "samples_per_step": 8, "loss": 1, "epoch_batches": 10,
    "epoch_start_waits_ms": [50]})",
                                                "blocks.json");
  const std::optional<EpochStart> start = EpochStartOf(result);
  ASSERT_TRUE(start.has_value());
  const EpochStartShares shares = EpochStartSharesOf(*start, result, "c", 2);
  EXPECT_DOUBLE_EQ(shares.baseline.cost_ms, 50.0);
  EXPECT_EQ(CandidateRounds(result, "c", 2, shares).size(), 0u) << "no candidate block to pair";
}

TEST(BlocksResult, NoEpochStartWithoutAnEpochsLengthOrAStartAfterTheWarmUp) {
  const std::string one_start = R"({"blocks": [
    {"candidate": "bf16", "side": "baseline", "cycle": 0, "step_ms": [170, 470],
     "loader_wait_ms": [0.2, 290], "epoch_starts": [1]}],
    "complete": true, "samples_per_step": 8, "loss": 1, "epoch_start_waits_ms": [290])";
  EXPECT_FALSE(EpochStartOf(ParseBlocksResult(one_start + "}", "b.json")))
      << "an iterable Dataset's epoch has no length";
  EXPECT_TRUE(EpochStartOf(ParseBlocksResult(one_start + R"(, "epoch_batches": 64})", "b.json")));
  EXPECT_FALSE(EpochStartOf(ParseBlocksResult(R"({"blocks": [], "complete": true,
    "samples_per_step": 8, "loss": 1, "epoch_batches": 64})",
                                              "b.json")))
      << "no epoch began after the warm-up";
}

// Epochs of one batch: every step began one and pays its start as timed, so nothing is added.
TEST(BlocksResult, ABlockOfNothingButEpochStartsIsReadAsTimed) {
  const BlocksResult every = ParseBlocksResult(R"({"blocks": [
    {"candidate": "c", "side": "baseline", "cycle": 0, "step_ms": [470, 460],
     "loader_wait_ms": [290, 280], "epoch_starts": [0, 1]},
    {"candidate": "c", "side": "candidate", "cycle": 0, "step_ms": [370, 360],
     "loader_wait_ms": [290, 280], "epoch_starts": [0, 1]}],
    "complete": true, "samples_per_step": 8, "loss": 1, "epoch_batches": 1,
    "epoch_start_waits_ms": [290, 280, 290, 280]})",
                                               "b.json");
  const std::optional<EpochStart> start = EpochStartOf(every);
  ASSERT_TRUE(start.has_value());
  EXPECT_DOUBLE_EQ(start->extra_wait_ms, 285.0) << "no step began none: no usual wait to subtract";
  const std::vector<AbRound> rounds =
      CandidateRounds(every, "c", 2, EpochStartSharesOf(*start, every, "c", 2));
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0].baseline_ms, (std::vector<double>{470, 460}));
  EXPECT_EQ(rounds[0].candidate_ms, (std::vector<double>{370, 360}));
  EXPECT_EQ(SideLoaderWaitMs(every, "c", true, 2), 285.0) << "its starts are all it waited";
}

// A later run of blocks is priced by the first run's mean block, beside what the first run spent
// outside its blocks, which a second run pays once more: blocks differ in length.
TEST(BlocksResult, ARunOfBlocksIsPricedByItsMeanBlock) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [
    {"candidate": "a", "side": "baseline", "cycle": 0, "settle_ms": [1000], "step_ms": [1000]},
    {"candidate": "a", "side": "candidate", "cycle": 0, "settle_ms": [500, 500, 500, 500],
     "step_ms": [1000, 1000]}],
    "complete": true, "samples_per_step": 1, "loss": 1})",
                                                "blocks.json");
  const BlocksRunCost cost = CostOfBlocksRun(result, 10.0);
  EXPECT_DOUBLE_EQ(cost.outside_blocks_s, 4.0);
  EXPECT_DOUBLE_EQ(cost.mean_block_s, 3.0) << "2 s and 4 s";
  EXPECT_DOUBLE_EQ(cost.PriceS(6), 22.0);
  const BlocksRunCost none = CostOfBlocksRun(ParseBlocksResult(R"({"blocks": [],
    "complete": false, "samples_per_step": 1, "loss": 1})",
                                                               "blocks.json"),
                                             7.0);
  EXPECT_DOUBLE_EQ(none.PriceS(4), 7.0) << "no block measured: the run's wall";
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
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "settle_ms": [1, "x"], "step_ms": [1]}], "complete": true,
                           "samples_per_step": 1, "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].settle_ms[1]'"));
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "step_ms": [1, 2], "loader_wait_ms": [1]}], "complete": true,
                           "samples_per_step": 1, "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].loader_wait_ms'"))
      << "one wait a timed step";
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "settle_ms": [2], "step_ms": [1, 2], "loader_wait_ms": [1, 6]}],
                           "complete": true, "samples_per_step": 1, "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].loader_wait_ms[1]'"))
      << "a wait longer than its whole block";
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "step_ms": [1, 2], "loader_wait_ms": [1, 1], "epoch_starts": [2]}],
                           "complete": true, "samples_per_step": 1, "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].epoch_starts[0]'"))
      << "past the block's timed steps";
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "step_ms": [1, 2], "loader_wait_ms": [1, 1], "epoch_starts": [1, 1]}],
                           "complete": true, "samples_per_step": 1, "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].epoch_starts[1]' must rise"));
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "step_ms": [1, 2], "epoch_starts": [0]}],
                           "complete": true, "samples_per_step": 1, "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].epoch_starts'"))
      << "an epoch's start in a block no DataLoader fed";
  EXPECT_THAT(error_of(R"({"blocks": [], "complete": true, "samples_per_step": 1, "loss": 1,
                           "epoch_batches": 0})"),
              HasSubstr("blocks.json: field 'epoch_batches'"));
  EXPECT_THAT(error_of(R"({"blocks": [], "complete": true, "samples_per_step": 1, "loss": 1,
                           "loader_queue": -1})"),
              HasSubstr("blocks.json: field 'loader_queue'"));
  EXPECT_THAT(error_of(R"({"blocks": [{"candidate": "a", "side": "baseline", "cycle": 0,
                           "settle_ms": [2], "step_ms": [1, 2], "host_lead_ms": 6}],
                           "complete": true, "samples_per_step": 1, "loss": 1})"),
              HasSubstr("blocks.json: field 'blocks[0].host_lead_ms'"))
      << "a lead longer than the block it timed";
  EXPECT_THAT(error_of(R"({"blocks": [], "complete": true, "samples_per_step": 1, "loss": 1,
                           "epoch_start_waits_ms": [300, -1]})"),
              HasSubstr("blocks.json: field 'epoch_start_waits_ms[1]'"));
  EXPECT_THAT(error_of(R"({"blocks": [], "samples_per_step": 1, "loss": 1})"),
              HasSubstr("'complete'"));
  EXPECT_THAT(error_of("[1, 2"), HasSubstr("blocks.json: not valid JSON"));
  EXPECT_THAT(error_of(R"({"blocks": [], "complete": true, "samples_per_step": 1, "loss": 1,
                           "numerics": {"tf32": {"max_abs_diff": 1, "max_rel_diff": -1,
                                                 "tolerance": 0.05, "detail": ""}}})"),
              HasSubstr("blocks.json: field 'numerics.tf32.max_rel_diff'"));
  EXPECT_THAT(error_of(R"({"blocks": [], "complete": true, "samples_per_step": 1, "loss": 1,
                           "numerics": [1]})"),
              HasSubstr("'numerics'"));
}

// The probe's numerics checks inside the run: a difference, one that is not finite (null), and
// a check that could not run.
TEST(BlocksResult, ReadsTheNumericsCheckedInsideTheRun) {
  const BlocksResult result = ParseBlocksResult(R"({"blocks": [], "complete": true,
      "samples_per_step": 1, "loss": 1, "numerics": {
        "tf32": {"max_abs_diff": 0.002, "max_rel_diff": 0.001, "tolerance": 0.05,
                 "detail": "output.logits: relative difference 1.00e-03", "compared": 2},
        "bf16": {"max_abs_diff": null, "max_rel_diff": null, "tolerance": 0.04,
                 "detail": "output.loss is not finite"},
        "sdpa": {"error": "the model's forward under the candidate raised RuntimeError: x"}}})",
                                                "blocks.json");
  ASSERT_EQ(result.numerics.size(), 3u);
  const InRunNumerics& tf32 = result.numerics.at("tf32");
  EXPECT_TRUE(tf32.error.empty());
  EXPECT_EQ(tf32.numerics.max_rel_diff, 0.001);
  EXPECT_EQ(tf32.numerics.max_abs_diff, 0.002);
  EXPECT_EQ(tf32.numerics.tolerance, 0.05);
  EXPECT_EQ(tf32.numerics.checked_in, "process");
  EXPECT_THAT(tf32.detail, HasSubstr("output.logits"));
  EXPECT_TRUE(std::isinf(result.numerics.at("bf16").numerics.max_rel_diff)) << "admits nothing";
  EXPECT_THAT(result.numerics.at("sdpa").error, HasSubstr("raised RuntimeError"));
  EXPECT_TRUE(ParseBlocksResult(kBlocks, "blocks.json").numerics.empty());
}

}  // namespace
}  // namespace advisor
