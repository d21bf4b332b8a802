// Every node's summary merged into one (engine/script/node_merge): the straggler and its module
// across nodes whose clocks differ by a known offset, each rank's node, each node's clock; and
// node files that do not make one job, refused with the file named.
#include "engine/script/node_merge.h"

#include <gtest/gtest.h>

#include "engine/script/rank_windows.h"
#include "tests/script/node_windows.h"

namespace advisor {
namespace {

using advisor::testing::kMs;
using advisor::testing::NodeRankWindow;

// Node 1's clock runs this far ahead of node 0's.
constexpr TimeNs kNodeOneClock = 3'600'000 * kMs + 123'000;  // an hour and 0.123 ms

// Two nodes of two ranks each; rank 3 (on node 1) works 7 ms a step in "slow", the others 2 ms.
// The baselines share their steps; each node's instrumented window is its own (other steps).
std::vector<NodeFile> TwoNodes() {
  std::vector<NodeFile> files(2);
  for (int node = 0; node < 2; ++node) {
    NodeSummary& summary = files[node].summary;
    files[node].path = "out/nodes/node-" + std::to_string(node) + ".json";
    summary.node = node;
    summary.nodes = 2;
    summary.world_size = 4;
    summary.host = node == 0 ? "a" : "b";
    summary.script = {"train.py"};
    summary.warmup_steps = 3;
    summary.window_steps = 5;
    const TimeNs clock = node == 0 ? 0 : kNodeOneClock;
    for (int rank = 2 * node; rank < 2 * node + 2; ++rank) {
      const TimeNs work_ms = rank == 3 ? 7 : 2;
      summary.ranks.push_back({rank, NodeRankWindow(5, 6, work_ms, false, clock),
                               NodeRankWindow(20 + 10 * node, 3, work_ms, true, clock),
                               NodeRankWindow(1, 4, work_ms, false, clock).steps});
    }
  }
  files[1].summary.hotspot = "slow -> aten::mm";
  return files;
}

std::string ProblemOf(std::vector<NodeFile> files) {
  try {
    MergeNodes(std::move(files));
    return "";
  } catch (const NodeFileError& error) {
    return error.what();
  }
}

RecordedWindow Recorded(Timeline timeline) {
  RecordedWindow window;
  window.timeline = std::move(timeline);
  return window;
}

TEST(NodeMerge, ANodeOfOneRankKeepsTheWindowsItsSummaryCarries) {
  RankWindows node({1}, /*world_size=*/2);
  node.TimedSteps({NodeRankWindow(1, 4, 2, false, 0).steps});
  ASSERT_EQ(node.Timed().size(), 1u) << "its steps timed without a profiler go to the merge too";
  EXPECT_EQ(node.Timed()[0].size(), 4u);
  std::vector<RecordedWindow> baseline;
  baseline.push_back(Recorded(NodeRankWindow(5, 3, 2, false, 0)));
  EXPECT_EQ(node.Decide(Instrumentation::kNone, std::move(baseline)).timeline.ops.size(), 3u)
      << "the bisection sees the rank's own work";
  std::vector<RecordedWindow> level;
  level.push_back(Recorded(NodeRankWindow(9, 3, 2, true, 0)));
  node.Decide(Instrumentation::kChildrenOf, std::move(level));
  ASSERT_EQ(node.Baselines().size(), 1u);
  EXPECT_EQ(node.Baselines()[0].ops.size(), 6u) << "with its collectives";
  ASSERT_EQ(node.Deepest().size(), 1u);
  EXPECT_EQ(node.Deepest()[0].steps.front().index, 9);
  EXPECT_EQ(node.DecisionsNote(), "") << "one rank here: nothing was decided between ranks";
  EXPECT_FALSE(node.Summarise().has_value()) << "the summary is the merge's";

  RankWindows alone({0});
  std::vector<RecordedWindow> only;
  only.push_back(Recorded(NodeRankWindow(5, 3, 2, false, 0)));
  alone.Decide(Instrumentation::kNone, std::move(only));
  EXPECT_TRUE(alone.Baselines().empty()) << "a job of one rank keeps nothing";
}

TEST(NodeMerge, NamesTheStragglerOnAnotherNodeAndItsModule) {
  const DistributedSummary merged = MergeNodes(TwoNodes());
  EXPECT_EQ(merged.world_size, 4);
  ASSERT_EQ(merged.ranks.size(), 4u);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(merged.ranks[rank].rank, rank);
    EXPECT_EQ(merged.ranks[rank].node, rank / 2);
  }
  EXPECT_EQ(merged.collectives_matched, 6);
  ASSERT_TRUE(merged.straggler.has_value());
  EXPECT_EQ(merged.straggler->rank, 3);
  EXPECT_EQ(merged.straggler->path, "slow");
  EXPECT_NEAR(merged.straggler->path_excess_ms, 5.0, 1e-6);
  EXPECT_NEAR(merged.ranks[0].wait_ms, 5.0, 1e-6) << "every other rank waits 5 ms a step";
  ASSERT_EQ(merged.nodes.size(), 2u);
  EXPECT_EQ(merged.nodes[0].clock_offset_ms, 0.0);
  EXPECT_EQ(merged.nodes[1].clock_samples, 6);
  EXPECT_NEAR(merged.nodes[1].clock_offset_ms, 3'600'000.123, 1e-6);
  EXPECT_NEAR(merged.nodes[1].clock_spread_ms, 0.0, 1e-9);
  EXPECT_EQ(merged.nodes[1].ranks, (std::vector<int>{2, 3}));
  EXPECT_EQ(merged.nodes[1].host, "b");
  EXPECT_EQ(merged.nodes[1].file, "nodes/node-1.json");
  EXPECT_EQ(merged.nodes[1].hotspot, "slow -> aten::mm");
  for (const RankSummary& rank : merged.ranks) {
    ASSERT_TRUE(rank.unprofiled.has_value()) << "rank " << rank.rank;
    EXPECT_EQ(rank.unprofiled->steps, 4) << "every node's timed steps reach the merge";
  }
}

TEST(NodeMerge, RefusesNodeFilesThatDoNotMakeOneJob) {
  EXPECT_EQ(ProblemOf(TwoNodes()), "");
  std::vector<NodeFile> files = TwoNodes();
  files[1].summary.ranks[0].rank = 1;
  EXPECT_EQ(ProblemOf(files), "out/nodes/node-1.json: rank 1 is in out/nodes/node-0.json too");
  files = TwoNodes();
  files[1].summary.ranks.pop_back();
  EXPECT_EQ(ProblemOf(files), "out/nodes: no node's summary holds rank 3 of the job's 4");
  files = TwoNodes();
  files[1].summary.node = 0;
  EXPECT_EQ(ProblemOf(files), "out/nodes/node-1.json: says it is node 0");
  files = TwoNodes();
  files[1].summary.world_size = 6;
  EXPECT_EQ(ProblemOf(files),
            "out/nodes/node-1.json: a job of 6 ranks on 2 nodes; out/nodes/node-0.json says 4 "
            "ranks on 2 nodes");
  files = TwoNodes();
  files[1].summary.script = {"other.py"};
  EXPECT_EQ(ProblemOf(files),
            "out/nodes/node-1.json: ran 'other.py', out/nodes/node-0.json 'train.py': every node "
            "runs the same script");
  files = TwoNodes();
  files[1].summary.window_steps = 10;
  EXPECT_EQ(ProblemOf(files),
            "out/nodes/node-1.json: advisor ran with --warmup 3 --steps 10, on node 0 with 3 and "
            "5: give every node's advisor the same options");
  files = TwoNodes();
  files[1].summary.ranks[1].baseline = NodeRankWindow(6, 6, 7, false, kNodeOneClock);
  EXPECT_EQ(ProblemOf(files),
            "out/nodes/node-1.json: rank 3's baseline measured steps 6-11, rank 0's 5-10: the "
            "nodes ran different schedules");
  files = TwoNodes();
  files.pop_back();
  EXPECT_EQ(ProblemOf(files), "merging nodes needs two node summaries or more");
}

}  // namespace
}  // namespace advisor
