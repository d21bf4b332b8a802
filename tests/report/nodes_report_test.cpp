// A job merged from several nodes in the report: each rank's node and each node's clock in
// report.json, the node column and the clock sentence in report.md; one node's report has
// neither.
#include <gtest/gtest.h>

#include "engine/report/json_writer.h"
#include "engine/report/markdown_writer.h"
#include "tests/report/sample_report.h"
#include "tests/report/text_assertions.h"

namespace advisor {
namespace {

using nlohmann::json;
using testing::Contains;
using testing::Lacks;
using testing::MinimalReport;

RunReport TwoRanks(bool on_two_nodes) {
  RunReport report = MinimalReport();
  DistributedSummary distributed;
  distributed.world_size = 2;
  distributed.collectives_matched = 12;
  distributed.ranks.resize(2);
  distributed.ranks[1].rank = 1;
  if (on_two_nodes) {
    distributed.ranks[0].node = 0;
    distributed.ranks[1].node = 1;
    NodeInfo zero;
    zero.ranks = {0};
    zero.file = "nodes/node-0.json";
    NodeInfo one;
    one.node = 1;
    one.host = "node-b";
    one.ranks = {1};
    one.file = "nodes/node-1.json";
    one.clock_offset_ms = 3600000.123;
    one.clock_spread_ms = 0.02;
    one.clock_samples = 12;
    one.hotspot = "blocks.2 -> aten::mm";
    distributed.nodes = {zero, one};
  }
  report.distributed = distributed;
  return report;
}

TEST(NodesReport, ReportJsonNamesEachRanksNodeAndEachNodesClock) {
  const json distributed = ReportToJson(TwoRanks(true)).at("distributed");
  EXPECT_EQ(distributed["ranks"][1]["node"], 1);
  ASSERT_EQ(distributed["nodes"].size(), 2u);
  const json& one = distributed["nodes"][1];
  EXPECT_EQ(one["node"], 1);
  EXPECT_EQ(one["host"], "node-b");
  EXPECT_EQ(one["ranks"], json::array({1}));
  EXPECT_EQ(one["file"], "nodes/node-1.json");
  EXPECT_DOUBLE_EQ(one["clock_offset_ms"].get<double>(), 3600000.123);
  EXPECT_DOUBLE_EQ(one["clock_spread_ms"].get<double>(), 0.02);
  EXPECT_EQ(one["clock_samples"], 12);
  EXPECT_EQ(one["hotspot"], "blocks.2 -> aten::mm");

  const json alone = ReportToJson(TwoRanks(false)).at("distributed");
  EXPECT_TRUE(alone["ranks"][1]["node"].is_null());
  EXPECT_EQ(alone["nodes"], json::array());
}

TEST(NodesReport, ReportMdHasTheNodeColumnAndTheClocks) {
  const std::string md = ReportToMarkdown(TwoRanks(true));
  EXPECT_TRUE(Contains(md, "2 ranks measured on 2 nodes;")) << md;
  EXPECT_TRUE(Contains(md, "Node 1's clock less node 0's: ")) << md;
  EXPECT_TRUE(Contains(md, "over 12 collectives")) << md;
  EXPECT_TRUE(Contains(md, "| rank | node | step ms |")) << md;
  const std::string alone = ReportToMarkdown(TwoRanks(false));
  EXPECT_TRUE(Lacks(alone, "| node |")) << alone;
  EXPECT_TRUE(Lacks(alone, "ranks measured on")) << alone;
}

}  // namespace
}  // namespace advisor
