// dataloader-workers as a series: the counts tried, the knee kept, the series reported, with a
// fake benchmark in place of worker processes.
#include "engine/autotest/loader_workers_series.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace advisor {
namespace {

TEST(LoaderWorkerCounts, PowersOfTwoBelowTheCoresThenTheCoresWithoutTheCurrentCount) {
  EXPECT_EQ(LoaderWorkerCounts(0, 16), (std::vector<int>{2, 4, 8, 16}));
  EXPECT_EQ(LoaderWorkerCounts(4, 16), (std::vector<int>{2, 8, 16}));
  EXPECT_EQ(LoaderWorkerCounts(0, 6), (std::vector<int>{2, 4, 6}));
  EXPECT_EQ(LoaderWorkerCounts(0, 2), (std::vector<int>{2}));
  EXPECT_EQ(LoaderWorkerCounts(2, 2), (std::vector<int>{}));
  EXPECT_EQ(LoaderWorkerCounts(0, 1), (std::vector<int>{}));
}

WorkerCountPoint Point(int workers, double speedup) {
  WorkerCountPoint point;
  point.workers = workers;
  point.speedup = speedup;
  return point;
}

TEST(KneeOf, TheFewestWorkersWithinNoiseOfTheFastest) {
  EXPECT_EQ(KneeOf({Point(2, 2.0), Point(4, 3.9), Point(8, 6.2), Point(16, 6.4)}), 2u)
      << "8 workers are within 5% of 16's speedup";
  EXPECT_EQ(KneeOf({Point(16, 6.4), Point(8, 5.0), Point(2, 2.0)}), 0u) << "in any order";
  EXPECT_EQ(KneeOf({Point(2, 0.0), Point(4, 0.0)}), std::nullopt) << "nothing measured";
  EXPECT_EQ(KneeOf({Point(2, 0.0), Point(4, 0.9)}), 1u) << "slower, but the only measured";
}

Recipe WorkersRecipe() {
  Recipe recipe;
  recipe.id = "dataloader-workers";
  recipe.kind = RecipeKind::kKnob;
  recipe.preserves_semantics = true;
  recipe.overrides.dataloader_workers = ThreadCount{};
  return recipe;
}

// A benchmark of the seed's pipeline on 16 cores: step 788 ms with 4 workers, then 356 with 8,
// 127 with 16 (docs/benchmarks.md); 2 workers slower than 4.
TEST(RunLoaderWorkersSeries, TriesEachCountAndKeepsTheKnee) {
  const std::map<int, double> step_ms{{2, 1500.0}, {8, 356.0}, {16, 127.0}};
  std::vector<int> tried;
  std::ostringstream progress;
  const AbResult result = RunLoaderWorkersSeries(
      WorkersRecipe(), /*current_workers=*/4, /*cores=*/16,
      [&](const CandidateSpec& candidate, int) {
        const int workers = candidate.overrides.dataloader_workers->count;
        tried.push_back(workers);
        EXPECT_EQ(candidate.id, "dataloader-workers") << "the recipe's numerics verdict applies";
        AbResult ab{NewFixResult(candidate), 32 * 1000.0 / 788.0, {}};
        ab.fix.step_statistic = "mean";  // a workload that waits for its input
        ab.fix.baseline.mean_ms = 788.0;
        ab.fix.baseline.samples = 5;
        ab.fix.candidate.mean_ms = step_ms.at(workers);
        ab.fix.speedup = 788.0 / step_ms.at(workers);
        ab.fix.status = ab.fix.speedup > 1 ? fix_status::kVerified : fix_status::kRejected;
        ab.candidate_samples_per_s = 32 * 1000.0 / step_ms.at(workers);
        return ab;
      },
      progress);
  EXPECT_EQ(tried, (std::vector<int>{2, 8, 16}));
  ASSERT_EQ(result.fix.knee_workers, 16);
  EXPECT_EQ(result.fix.status, fix_status::kVerified);
  EXPECT_DOUBLE_EQ(result.fix.candidate.mean_ms, 127.0) << "the fix is the knee's";
  ASSERT_EQ(result.fix.worker_series.size(), 4u) << "2, the workload's 4, 8, 16";
  EXPECT_EQ(result.fix.worker_series[0].workers, 2);
  EXPECT_EQ(result.fix.worker_series[0].status, fix_status::kRejected);
  EXPECT_EQ(result.fix.worker_series[1].workers, 4);
  EXPECT_EQ(result.fix.worker_series[1].status, "baseline");
  EXPECT_DOUBLE_EQ(result.fix.worker_series[1].speedup, 1.0);
  EXPECT_DOUBLE_EQ(result.fix.worker_series[1].step_ms, 788.0);
  EXPECT_DOUBLE_EQ(*result.fix.worker_series[2].samples_per_s, 32 * 1000.0 / 356.0);
  EXPECT_NE(result.fix.detail.find("knee: 16 workers"), std::string::npos) << result.fix.detail;
}

// On 2 cores the seed's 4 workers are already as fast as 2: the knee is the workload's count.
TEST(RunLoaderWorkersSeries, TheKneeMayBeTheWorkloadsOwnCount) {
  std::ostringstream progress;
  const AbResult result = RunLoaderWorkersSeries(
      WorkersRecipe(), 4, 2,
      [](const CandidateSpec& candidate, int) {
        AbResult ab{NewFixResult(candidate), 40.0, 30.0};
        ab.fix.baseline = {100.0, 100.0, 95.0, 110.0, 5};
        ab.fix.candidate = {130.0, 130.0, 125.0, 140.0, 5};
        ab.fix.speedup = 100.0 / 130.0;
        ab.fix.status = fix_status::kRejected;
        return ab;
      },
      progress);
  EXPECT_EQ(result.fix.knee_workers, 4);
  EXPECT_EQ(result.fix.status, fix_status::kRejected) << "2 workers were measurably slower";
  ASSERT_EQ(result.fix.worker_series.size(), 2u);
  EXPECT_EQ(result.fix.worker_series[1].workers, 4);
  EXPECT_NE(result.fix.detail.find("knee: the workload's own 4 workers, kept"), std::string::npos)
      << result.fix.detail;
}

TEST(RunLoaderWorkersSeries, AMachineWithNoOtherCountSaysSo) {
  std::ostringstream progress;
  const AbResult result = RunLoaderWorkersSeries(
      WorkersRecipe(), 2, 2,
      [](const CandidateSpec&, int) -> AbResult {
        ADD_FAILURE() << "nothing to try";
        return {};
      },
      progress);
  EXPECT_EQ(result.fix.status, fix_status::kSkipped);
  EXPECT_NE(result.fix.detail.find("no worker count other than the workload's 2 fits 2 core(s)"),
            std::string::npos)
      << result.fix.detail;
}

TEST(RunLoaderWorkersSeries, FailedCountsAreInTheSeriesButNeverTheKnee) {
  std::ostringstream progress;
  const AbResult result = RunLoaderWorkersSeries(
      WorkersRecipe(), 0, 4,
      [](const CandidateSpec& candidate, int) {
        AbResult ab{NewFixResult(candidate), {}, {}};
        if (candidate.overrides.dataloader_workers->count == 4) {
          ab.fix.status = fix_status::kFailed;
          ab.fix.detail = "worker crashed";
        } else {
          ab.fix.status = fix_status::kVerified;
          ab.fix.speedup = 1.8;
          ab.fix.candidate.median_ms = 10;
        }
        return ab;
      },
      progress);
  EXPECT_EQ(result.fix.knee_workers, 2);
  ASSERT_EQ(result.fix.worker_series.size(), 2u);
  EXPECT_EQ(result.fix.worker_series[1].status, fix_status::kFailed);
  EXPECT_DOUBLE_EQ(result.fix.worker_series[1].speedup, 0.0);
}

}  // namespace
}  // namespace advisor
