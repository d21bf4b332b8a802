#include "engine/multi_rank/distributed_summary.h"

#include <gtest/gtest.h>

#include "engine/multi_rank/unprofiled_check.h"
#include "engine/trace_analysis/collectives.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_reader.h"

namespace advisor {
namespace {

const std::string kRanks = std::string(ADVISOR_TEST_TRACES_DIR) + "/torch-1.13-cpu/ranks/straggler";

std::vector<RankTrace> ReadRanks() {
  std::vector<RankTrace> ranks;
  std::vector<std::string> notes;
  for (const char* file : {"rank1.json.gz", "rank0.json.gz"}) {
    const std::string path = kRanks + "/" + file;
    const TraceStore store = ReadTrace(path);
    RankTrace rank;
    rank.path = path;
    rank.rank = RankOf(store.metadata, path, static_cast<int>(ranks.size()), notes);
    rank.trace = BuildProfilerTraceWindow(store);
    rank.report = ReportOfTrace(store, rank.trace);
    ranks.push_back(std::move(rank));
  }
  EXPECT_EQ(notes.size(), 2u) << "the legacy format has no distributedInfo: ranks by file name";
  SortByRank(ranks);
  return ranks;
}

// scripts/record_traces.py --cpu: DDP on gloo, rank 1 runs 12 extra matmuls in blocks.2.mixer.
TEST(DistributedSummary, NamesThePlantedStragglerAndItsModule) {
  const std::vector<RankTrace> ranks = ReadRanks();
  ASSERT_EQ(ranks[0].rank, 0);
  const DistributedSummary summary = SummariseRanks(ranks);
  EXPECT_EQ(summary.world_size, 2);
  ASSERT_EQ(summary.ranks.size(), 2u);
  EXPECT_GT(summary.collectives_matched, 0);
  ASSERT_TRUE(summary.straggler.has_value());
  const Straggler& straggler = *summary.straggler;
  EXPECT_EQ(straggler.rank, 1);
  EXPECT_EQ(straggler.path, "blocks.2.mixer");
  EXPECT_EQ(straggler.op, "aten::mm");
  EXPECT_EQ(straggler.op_phase, "forward");
  EXPECT_GT(straggler.path_excess_ms, 0.5 * straggler.compute_excess_ms);
  EXPECT_GT(straggler.last_share, 0.5);
  // Rank 0 waits for rank 1 inside the collectives: its communication is longer, and exposed.
  EXPECT_GT(summary.ranks[0].comm_ms, summary.ranks[1].comm_ms);
  EXPECT_GT(summary.ranks[0].exposed_comm_ms, 0);
  EXPECT_GT(summary.ranks[1].late_ms, summary.ranks[0].late_ms);
  // The early rank waits for the late one in the collectives: about as long as that one is late.
  EXPECT_GT(summary.ranks[0].wait_ms, summary.ranks[1].wait_ms);
  EXPECT_NEAR(summary.ranks[0].wait_ms - summary.ranks[1].wait_ms,
              summary.ranks[1].late_ms - summary.ranks[0].late_ms, 1e-9)
      << "with two ranks, one's wait at a collective is the other's lateness";
  EXPECT_GE(summary.skew_max_ms, summary.skew_median_ms);
  // A trace has no steps timed without a profiler: the straggler cannot be checked against them,
  // and is not taken for the measurement's own effect either.
  EXPECT_FALSE(summary.ranks[1].unprofiled.has_value());
  EXPECT_FALSE(straggler.holds_unprofiled.has_value());
  EXPECT_FALSE(straggler.unprofiled_excess_ms.has_value());
  EXPECT_EQ(UnconfirmedStragglerNote(summary), "");
}

// Two gloo ranks of three 30 ms steps, each ending with an all-reduce; on rank 1, blocks.2's
// forward lasts `slow_ms` longer with no op in it (a sleep, Python between the ops), and every
// rank's all-reduce ends together, so rank 0's lasts `slow_ms` longer waiting for it.
struct SleepyRank {
  Timeline timeline;
  MeasuredWindow window;
  std::vector<CollectiveCall> collectives;
  RunReport report;
};

void FillSleepyRank(SleepyRank& rank, bool slow, double slow_ms) {
  const TimeNs extra = slow ? static_cast<TimeNs>(slow_ms * 1e6) : 0;
  const TimeNs wait = slow ? 0 : static_cast<TimeNs>(slow_ms * 1e6);
  for (int i = 0; i < 3; ++i) {
    const TimeNs t = i * 30'000'000;
    rank.timeline.steps.push_back(
        StepOfPhases(i, t, t, t + 24'000'000, t + 28'000'000, t + 30'000'000));
    rank.timeline.markers.push_back({"blocks.2", MarkerKind::kForwardEnter, 1, t + 1'000'000});
    rank.timeline.markers.push_back(
        {"blocks.2", MarkerKind::kForwardExit, 1, t + 2'000'000 + extra});
    OpEvent all_reduce;
    all_reduce.name = "gloo:all_reduce";
    all_reduce.thread = 1;
    all_reduce.start_ns = t + 24'500'000 - wait;
    all_reduce.end_ns = t + 25'000'000;
    rank.timeline.ops.push_back(all_reduce);
    rank.timeline.SetCorrelation(rank.timeline.ops.size() - 1, rank.timeline.ops.size());
  }
  rank.window = MeasureWindow(rank.timeline);
  rank.collectives = CollectivesOf(rank.window, HostEvents{}, {});
  ModuleStats module;
  module.path = "blocks.2";
  rank.report.modules.push_back(module);
}

TEST(DistributedSummary, AModuleLateOnItsHostIsNamedByItsForwardsWallTime) {
  std::vector<SleepyRank> ranks(2);
  std::vector<RankWindow> windows;
  for (int r = 0; r < 2; ++r) {
    FillSleepyRank(ranks[r], r == 1, 20.0);
    RankWindow window;
    window.rank = r;
    window.window = &ranks[r].window;
    window.modules_window = &ranks[r].window;
    window.collectives = &ranks[r].collectives;
    window.report = &ranks[r].report;
    windows.push_back(window);
  }
  const DistributedSummary summary = SummariseRanks(windows);
  ASSERT_TRUE(summary.straggler.has_value());
  EXPECT_EQ(summary.straggler->rank, 1);
  EXPECT_NEAR(summary.straggler->late_ms, 20.0, 0.01);
  EXPECT_EQ(summary.straggler->path, "blocks.2") << "no op in it: its ops' time shows nothing";
  EXPECT_TRUE(summary.straggler->path_by_wall_time);
  EXPECT_NEAR(summary.straggler->path_excess_ms, 20.0, 0.01);
}

TEST(DistributedSummary, TwoTracesOfOneRankAreRefused) {
  std::vector<RankTrace> ranks(2);
  ranks[0].path = "a.json";
  ranks[1].path = "b.json";
  try {
    SortByRank(ranks);
    FAIL();
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "a.json and b.json are both rank 0: give one trace per rank");
  }
}

TEST(RankOf, DistributedInfoThenTheFileNameThenThePlace) {
  std::vector<std::string> notes;
  TraceMetadata metadata;
  EXPECT_EQ(RankOf(metadata, "/runs/job/rank3.1234.pt.trace.json", 0, notes), 3);
  EXPECT_EQ(RankOf(metadata, "/runs/rank_12/host_1.json", 0, notes), 0)
      << "only the file's name counts, not its folder's";
  EXPECT_EQ(RankOf(metadata, "worker-rank_5.json.gz", 9, notes), 5);
  metadata.distributed = DistributedInfo{"nccl", 7, 8, {}};
  EXPECT_EQ(RankOf(metadata, "rank3.json", 0, notes), 7);
  EXPECT_EQ(notes.size(), 3u) << "each rank not from distributedInfo is noted";
}

}  // namespace
}  // namespace advisor
