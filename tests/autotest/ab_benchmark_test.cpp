#include "engine/autotest/ab_benchmark.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "tests/autotest/fake_candidate.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kBaseline20ms[] = "write_result 20 2000 8 1.5 ''";

CandidateSpec Knob(const std::string& id) {
  CandidateSpec candidate;
  candidate.id = id;
  candidate.recipe_ids = {id};
  candidate.kind = "knob";
  candidate.env["ADVISOR_TEST_KNOB"] = "on";
  return candidate;
}

AbSettings FiveRounds() {
  AbSettings settings;
  settings.max_rounds = 5;
  settings.candidate_timeout = std::chrono::seconds(20);
  return settings;
}

class AbBenchmark : public ::testing::Test {
 protected:
  AbResult Run(const std::string& candidate_body, const CandidateSpec& candidate = Knob("fast"),
               const AbSettings& settings = FiveRounds(),
               const std::string& baseline_body = kBaseline20ms) {
    const testing::FakeCandidateRunner runner(
        testing::WriteFakeCandidate(dir_.path(), baseline_body, candidate_body));
    return RunAbBenchmark(candidate, runner, settings, dir_.path(), budget_, /*rounds_queued=*/0,
                          progress_);
  }
  std::string Order() const { return testing::ReadFile(dir_ / "order.log"); }

  testing::ScratchDir dir_;
  AutotestBudget budget_;
  std::ostringstream progress_;
};

TEST_F(AbBenchmark, MeasuresASpeedupFromInterleavedRounds) {
  const AbResult ab = Run("write_result 10 1500 8 1.5 '\"blocks.0.attn\"'");
  const FixResult& fix = ab.fix;
  EXPECT_EQ(fix.status, "verified");
  EXPECT_EQ(fix.recipe, "fast");
  EXPECT_EQ(fix.kind, "knob");
  EXPECT_DOUBLE_EQ(fix.speedup, 2.0);
  EXPECT_DOUBLE_EQ(fix.speedup_low, 2.0);
  EXPECT_DOUBLE_EQ(fix.speedup_high, 2.0);
  EXPECT_DOUBLE_EQ(fix.baseline.median_ms, 20);
  EXPECT_DOUBLE_EQ(fix.candidate.median_ms, 10);
  EXPECT_EQ(fix.baseline.samples, 6);  // 3 steps x 2 rounds: a clear 2x needs no more
  EXPECT_EQ(fix.rounds, 2);
  EXPECT_DOUBLE_EQ(*fix.speedup_ci_low, 2.0);  // steps without spread: an interval of no width
  EXPECT_DOUBLE_EQ(*fix.speedup_ci_high, 2.0);
  EXPECT_EQ(fix.peak_memory_mb, 1500);
  EXPECT_EQ(ab.fix.baseline_peak_memory_mb, 2000);
  EXPECT_DOUBLE_EQ(*ab.baseline_samples_per_s, 400);
  EXPECT_DOUBLE_EQ(*ab.candidate_samples_per_s, 800);
  EXPECT_EQ(fix.sites, std::vector<std::string>{"blocks.0.attn"});
  EXPECT_EQ(fix.detail, "");
  // A B A B ..., and only the candidate sees the recipe's environment.
  std::string alternating;
  for (int round = 0; round < 2; ++round) alternating += "baseline unset\nfast on\n";
  EXPECT_EQ(Order(), alternating);
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] fast: round 2/5 candidate 10.0 ms, 2.000x [2.000x, 2.000x]"));
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] fast: verified, 2.000x (95 % interval 2.000x to 2.000x, 2 "
                        "rounds)"));
}

// torch.compile's first round compiles, the later ones load the graphs from the cache the runs
// share: each round's warm-up and cache lookups, in round order, beside the longest warm-up.
TEST_F(AbBenchmark, EachCandidateRoundsWarmUpAndCompileCacheLookupsAreKept) {
  const AbResult ab = Run(R"(if [ $round = 0 ]; then warmup=30.5 cache='"hits":0,"misses":3'
else warmup=4.25 cache='"hits":3,"misses":0'; fi
printf '{"step_ms":[10,10,10],"peak_memory_mb":null,"samples_per_step":8,"loss":1,"sites":[],"warmup_s":%s,"fx_graph_cache":{%s,"bypasses":0}}' \
  "$warmup" "$cache" > "$result")");
  const FixResult& fix = ab.fix;
  ASSERT_EQ(fix.rounds, 2);
  ASSERT_EQ(fix.warmup_rounds.size(), 2u) << "the baseline's rounds are not the fix's";
  EXPECT_EQ(fix.warmup_rounds[0].warmup_s, 30.5);
  EXPECT_EQ(fix.warmup_rounds[0].fx_graph_cache->misses, 3);
  EXPECT_EQ(fix.warmup_rounds[1].warmup_s, 4.25);
  EXPECT_EQ(fix.warmup_rounds[1].fx_graph_cache->hits, 3);
  EXPECT_EQ(fix.warmup_s, 30.5);
}

TEST_F(AbBenchmark, AWorkerThatReportsNoWarmUpListsNoRounds) {
  const AbResult ab = Run("write_result 10 1500 8 1.5 ''");
  EXPECT_EQ(ab.fix.rounds, 2);
  EXPECT_TRUE(ab.fix.warmup_rounds.empty());
  EXPECT_FALSE(ab.fix.warmup_s);
}

TEST_F(AbBenchmark, EqualTimesAreNoMeasurableChange) {
  const AbResult ab = Run("write_result 20 2000 8 1.5 ''");
  EXPECT_EQ(ab.fix.status, "no-change");
  EXPECT_DOUBLE_EQ(ab.fix.speedup, 1.0);
  EXPECT_EQ(ab.fix.detail,
            "no measurable change: 1.000x (95 % interval 1.000x to 1.000x, 2 rounds), the whole "
            "interval lies within the 2.0 % noise threshold");
}

TEST_F(AbBenchmark, AMeasurableSlowdownIsRejected) {
  const AbResult ab = Run("write_result 25 2000 8 1.5 ''");
  EXPECT_EQ(ab.fix.status, "rejected");
  EXPECT_DOUBLE_EQ(ab.fix.speedup, 0.8);
  EXPECT_THAT(ab.fix.detail, StartsWith("slower than the baseline: 0.800x"));
}

TEST_F(AbBenchmark, AnUnclearDifferenceGetsEveryRoundUpToTheCap) {
  // The candidate is 5 % faster in odd rounds and 1 % slower in even ones: no number of rounds
  // up to 5 separates that from the baseline.
  const AbResult ab = Run(R"(if [ $((round % 2)) = 0 ]; then write_steps 19.0,19.1,18.9
else write_steps 20.2,20.1,20.3; fi)",
                          Knob("fast"), FiveRounds(), R"(write_steps 20.0,20.1,19.9)");
  EXPECT_EQ(ab.fix.status, "no-change");
  EXPECT_EQ(ab.fix.rounds, 5);
  ASSERT_TRUE(ab.fix.speedup_ci_low && ab.fix.speedup_ci_high);
  EXPECT_LT(*ab.fix.speedup_ci_low, 1.0);
  EXPECT_GT(*ab.fix.speedup_ci_high, 1.02);
  EXPECT_THAT(ab.fix.detail, HasSubstr("the 95 % interval includes 1.0 after 5 rounds"));
}

TEST_F(AbBenchmark, ASmallSteadyGainIsVerifiedOnceTheRoundsSeparateIt) {
  // 4 % faster in every round, each round's steps spread by about 1 %: two rounds leave the
  // interval across the 2 % edge of the noise band, more rounds narrow it.
  const AbResult ab = Run(R"(write_steps 19.2,19.4,19.0,19.3,19.1)", Knob("fast"), FiveRounds(),
                          R"(if [ $((round % 2)) = 0 ]; then write_steps 20.0,20.2,19.8,20.1,19.9
else write_steps 20.1,20.3,19.9,20.2,20.0; fi)");
  EXPECT_EQ(ab.fix.status, "verified");
  EXPECT_GT(ab.fix.rounds, 2);
  EXPECT_LE(ab.fix.rounds, 5);
  EXPECT_GT(*ab.fix.speedup_ci_low, 1.02);
}

TEST_F(AbBenchmark, TheBudgetEndsTheRoundsAndTheDetailSaysSo) {
  budget_ = AutotestBudget(std::chrono::seconds(2));
  // Each process takes about 0.4 s; the difference is unclear, so only the budget ends it.
  const AbResult ab = Run(R"(sleep 0.4; if [ $((round % 2)) = 0 ]; then write_steps 19.0
else write_steps 20.2; fi)",
                          Knob("fast"), FiveRounds(), R"(sleep 0.4; write_steps 20.0)");
  EXPECT_LT(ab.fix.rounds, 5);
  EXPECT_GE(ab.fix.rounds, 1);
  EXPECT_EQ(ab.fix.status, "no-change");
  EXPECT_THAT(ab.fix.detail, HasSubstr("the autotest budget (2s) ended it after "));
}

TEST_F(AbBenchmark, ACrashingCandidateFailsWithItsSignalAndStderr) {
  const AbResult ab =
      Run("echo 'CUDA error: an illegal memory access was encountered' >&2; kill -SEGV $$");
  EXPECT_EQ(ab.fix.status, "failed");
  EXPECT_THAT(ab.fix.detail, StartsWith("candidate round 1/5: killed by signal 11"));
  EXPECT_THAT(ab.fix.detail, HasSubstr("CUDA error: an illegal memory access"));
  EXPECT_EQ(ab.fix.speedup, 0);                     // nothing measured is reported as measured
  EXPECT_EQ(Order(), "baseline unset\nfast on\n");  // no round after the failure
}

TEST_F(AbBenchmark, AHangingCandidateIsKilledAtTheTimeout) {
  AbSettings settings = FiveRounds();
  settings.candidate_timeout = std::chrono::seconds(1);
  const auto start = std::chrono::steady_clock::now();
  const AbResult ab = Run("sleep 30", Knob("fast"), settings);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(ab.fix.status, "failed");
  EXPECT_THAT(ab.fix.detail, StartsWith("candidate round 1/5: timed out after 1."));
  EXPECT_LT(elapsed_s, 4.0);
}

TEST_F(AbBenchmark, GarbageOrNoResultFails) {
  EXPECT_THAT(Run("echo garbage > \"$result\"").fix.detail,
              ::testing::AllOf(StartsWith("candidate round 1/5: "), HasSubstr("not valid JSON")));
  EXPECT_THAT(Run("exit 0").fix.detail, HasSubstr("the worker wrote no result file"));
  EXPECT_THAT(Run("write_result 10 null 8 null ''").fix.detail,
              HasSubstr("candidate round 1/5: the loss was not finite"));
}

TEST_F(AbBenchmark, ABatchSizeThatChangesBetweenRoundsFails) {
  const AbResult ab = Run(R"(once="$(dirname "$result")/ran-once"
if [ -e "$once" ]; then write_result 10 null 16 1 ''; else touch "$once"; write_result 10 null 8 1 ''; fi)");
  EXPECT_EQ(ab.fix.status, "failed");
  EXPECT_EQ(ab.fix.detail, "candidate round 2/5: samples_per_step changed from 8 to 16");
}

TEST_F(AbBenchmark, AFailingBaselineIsNamedAsTheBaseline) {
  const AbResult ab = Run("write_result 10 null 8 1 ''", Knob("fast"), FiveRounds(), "exit 1");
  EXPECT_EQ(ab.fix.status, "failed");
  EXPECT_THAT(ab.fix.detail, StartsWith("baseline round 1/5: exit status 1"));
}

TEST_F(AbBenchmark, TheWorkerCanDeclineACandidate) {
  const AbResult ab =
      Run(R"(printf '{"skipped": "not applicable: no convolution in the model"}' > "$result")");
  EXPECT_EQ(ab.fix.status, "skipped");
  EXPECT_EQ(ab.fix.detail, "not applicable: no convolution in the model");
}

TEST_F(AbBenchmark, ARewriteThatChangedNothingIsSkipped) {
  CandidateSpec rewrite = Knob("gather-to-index");
  rewrite.kind = "rewrite";
  rewrite.rewrites = {"gather-to-index"};
  const AbResult ab = Run("write_result 20 null 8 1 ''", rewrite);
  EXPECT_EQ(ab.fix.status, "skipped");
  EXPECT_EQ(ab.fix.detail, "not applicable: the rewrite changed no site in this model");
}

}  // namespace
}  // namespace advisor
