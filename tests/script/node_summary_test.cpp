// A node's summary file (engine/script/node_summary, node_folder): written whole, read back as
// written, and refused with the problem named when another machine's file is wrong.
#include "engine/script/node_summary.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/script/node_folder.h"
#include "tests/script/node_windows.h"

namespace advisor {
namespace {

using advisor::testing::NodeRankWindow;
using nlohmann::json;

NodeSummary NodeOne() {
  NodeSummary summary;
  summary.node = 1;
  summary.nodes = 2;
  summary.world_size = 4;
  summary.host = "node-b";
  summary.script = {"train.py", "--slow-rank", "3"};
  summary.warmup_steps = 3;
  summary.window_steps = 5;
  summary.hotspot = "slow -> aten::mm";
  summary.ranks.push_back({2, NodeRankWindow(5, 3, 2, false, 0), NodeRankWindow(9, 3, 2, true, 0)});
  summary.ranks.push_back({3, NodeRankWindow(5, 3, 7, false, 0), NodeRankWindow(9, 3, 7, true, 0)});
  for (NodeRankWindows& rank : summary.ranks) rank.timed = NodeRankWindow(1, 2, 4, false, 0).steps;
  summary.ranks[1].modules.memory_at_start = MemoryAtStart{1, 38 << 20};
  return summary;
}

// The problem ReadNodeSummary names for `file`; "" when it reads.
std::string ProblemOf(const json& file) {
  try {
    ReadNodeSummary(file.dump(), "node-1.json");
    return "";
  } catch (const NodeFileError& error) {
    return error.what();
  }
}

TEST(NodeSummary, ReadsBackWhatItWrote) {
  const NodeSummary read = ReadNodeSummary(NodeSummaryToJson(NodeOne()), "node-1.json");
  EXPECT_EQ(read.node, 1);
  EXPECT_EQ(read.nodes, 2);
  EXPECT_EQ(read.world_size, 4);
  EXPECT_EQ(read.host, "node-b");
  EXPECT_EQ(read.script, NodeOne().script);
  EXPECT_EQ(read.warmup_steps, 3);
  EXPECT_EQ(read.window_steps, 5);
  EXPECT_EQ(read.hotspot, "slow -> aten::mm");
  ASSERT_EQ(read.ranks.size(), 2u);
  EXPECT_EQ(read.ranks[1].rank, 3);
  const Timeline& baseline = read.ranks[1].baseline;
  ASSERT_EQ(baseline.steps.size(), 3u);
  EXPECT_EQ(baseline.steps[0].index, 5);
  ASSERT_EQ(baseline.ops.size(), 6u);
  EXPECT_EQ(baseline.ops[1].name, "gloo:all_reduce");
  EXPECT_EQ(baseline.ops[1].end_ns - baseline.ops[1].start_ns, 3 * advisor::testing::kMs);
  EXPECT_EQ(read.ranks[1].modules.markers.size(), 6u);
  EXPECT_EQ(read.ranks[1].modules.steps[0].index, 9);
  ASSERT_TRUE(read.ranks[1].modules.memory_at_start) << "the window's peak counts it";
  EXPECT_EQ(read.ranks[1].modules.memory_at_start->device, 1);
  EXPECT_EQ(read.ranks[1].modules.memory_at_start->bytes, 38 << 20);
  EXPECT_FALSE(read.ranks[1].baseline.memory_at_start) << "absent where the rank kept no counter";
  ASSERT_EQ(read.ranks[1].timed.size(), 2u) << "the steps timed without a profiler travel too";
  EXPECT_EQ(read.ranks[1].timed[1].index, 2);
}

TEST(NodeSummary, RefusesAFileThatIsNotOneNodesSummary) {
  const json good = json::parse(NodeSummaryToJson(NodeOne()));
  EXPECT_EQ(ProblemOf(good), "");
  const auto with = [&good](const std::function<void(json&)>& change) {
    json file = good;
    change(file);
    return ProblemOf(file);
  };
  EXPECT_EQ(with([](json& f) { f["format"] = "advisor-report"; }),
            "node-1.json: field 'format' must be one of \"advisor-node-summary\", got "
            "\"advisor-report\"");
  EXPECT_EQ(with([](json& f) { f["format"] = 7; }),
            "node-1.json: field 'format' must be one of \"advisor-node-summary\", got 7");
  EXPECT_EQ(with([](json& f) { f["version"] = 2; }),
            "node-1.json: field 'version' must be 1 (the version this advisor reads), got 2");
  EXPECT_EQ(with([](json& f) { f.erase("ranks"); }), "node-1.json: field 'ranks' is missing");
  EXPECT_EQ(with([](json& f) { f["ranks"][1]["modules"]["memory_at_start"]["device"] = -1; }),
            "node-1.json: field 'ranks[1].modules.memory_at_start.device' must be an integer from "
            "0 to 2147483647, got -1");
  EXPECT_EQ(with([](json& f) { f["node"] = 2; }),
            "node-1.json: field 'node' must be an integer from 0 to 1, got 2");
  EXPECT_EQ(with([](json& f) { f["nodes"] = 5; }),
            "node-1.json: field 'nodes' must be an integer from 2 to 4, got 5");
  EXPECT_EQ(with([](json& f) { f["world_size"] = -1; }),
            "node-1.json: field 'world_size' must be an integer from 2 to 1048576, got -1");
  EXPECT_EQ(with([](json& f) { f["ranks"][1]["rank"] = 4; }),
            "node-1.json: field 'ranks[1].rank' must be an integer from 0 to 3, got 4");
  EXPECT_EQ(with([](json& f) { f["ranks"][1]["rank"] = 2; }),
            "node-1.json: field 'ranks[1].rank' repeats rank 2");
  EXPECT_EQ(with([](json& f) { f["ranks"] = json::array(); }),
            "node-1.json: field 'ranks' must be an array of 1 to 4 elements, got []");
  EXPECT_EQ(with([](json& f) { f["schedule"]["window_steps"] = 0; }),
            "node-1.json: field 'schedule.window_steps' must be an integer from 1 to 1000, got 0");
  EXPECT_EQ(with([](json& f) { f["script"] = json::array(); }),
            "node-1.json: field 'script' must be an array of 1 to 4096 elements, got []");
  EXPECT_EQ(with([](json& f) { f["script"][0] = "a\nb"; }),
            "node-1.json: field 'script[0]' must be a string of at most 4096 bytes without "
            "control characters, got \"a\\nb\"");
  EXPECT_EQ(with([](json& f) { f["ranks"][0]["baseline"]["steps"] = json::array(); }),
            "node-1.json: field 'ranks[0].baseline.steps' must be a non-empty array, got []");
  EXPECT_EQ(with([](json& f) { f["ranks"][0]["modules"]["steps"][1][2] = 1; }),
            "node-1.json: field 'ranks[0].modules.steps[1][2]' must be an integer >= 10000000, "
            "got 1");
  EXPECT_NE(
      with([](json& f) { f["ranks"][0]["timed"][1][2] = 1; }).find("field 'ranks[0].timed[1][2]'"),
      std::string::npos);
  EXPECT_EQ(with([](json& f) { f["ranks"][0]["baseline"]["events"] = "x"; }),
            "node-1.json: field 'ranks[0].baseline.events' must be an object, got \"x\"");
  EXPECT_EQ(
      with([](json& f) { f["ranks"][0]["baseline"]["steps"][2][2] = (std::int64_t{1} << 62); }),
      "node-1.json: field 'ranks[0].baseline' has a time beyond 2^61 ns");
  EXPECT_EQ(with([](json& f) { f = json::array(); }),
            "node-1.json: top level must be an object, got []");
  try {
    ReadNodeSummary("{\"format\": ", "node-1.json");
    FAIL();
  } catch (const NodeFileError& error) {
    EXPECT_STREQ(error.what(),
                 "node-1.json: not valid JSON: parse error at line 1, column 12: syntax error "
                 "while parsing value - unexpected end of input; expected '[', '{', or a literal");
  }
}

class NodeFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = std::filesystem::temp_directory_path() /
           ("advisor-node-folder-" + std::to_string(::getpid()));
    std::filesystem::remove_all(out_);
  }
  void TearDown() override { std::filesystem::remove_all(out_); }
  std::filesystem::path out_;
};

TEST_F(NodeFolderTest, FilesAppearWholeAndAnEarlierRunsAreRemoved) {
  const NodeFolder folder(out_.string());
  folder.Prepare(1);
  EXPECT_EQ(folder.Missing(2), (std::vector<int>{0, 1}));
  folder.Write(1, NodeSummaryToJson(NodeOne()));
  EXPECT_EQ(folder.Missing(2), (std::vector<int>{0}));
  EXPECT_TRUE(folder.Has(1));
  EXPECT_FALSE(folder.Has(0));
  EXPECT_EQ(folder.Read(1).ranks.size(), 2u);
  for (const auto& entry : std::filesystem::directory_iterator(folder.path())) {
    EXPECT_EQ(entry.path().filename().string(), "node-1.json") << "no temporary file is left";
  }
  EXPECT_FALSE(folder.Released().has_value());
  folder.Release(42);
  EXPECT_EQ(folder.Released(), 42);
  folder.Prepare(1);
  EXPECT_EQ(folder.Missing(2), (std::vector<int>{0, 1})) << "a run starts without its old file";
  EXPECT_EQ(folder.Released(), 42) << "node 0's release is node 0's to remove";
  folder.Prepare(0);
  EXPECT_FALSE(folder.Released().has_value());
}

TEST_F(NodeFolderTest, AFileFromAnotherMachineIsCheckedAndNamed) {
  const NodeFolder folder(out_.string());
  folder.Prepare(0);
  std::ofstream(folder.FileOf(1)) << "{\"format\": \"advisor-node-summary\", \"version\": 1}";
  try {
    folder.Read(1);
    FAIL();
  } catch (const NodeFileError& error) {
    EXPECT_EQ(std::string(error.what()), folder.FileOf(1) + ": field 'world_size' is missing");
  }
  std::ofstream(folder.path() + "/released.json") << "{\"end_steps\": -3}";
  EXPECT_THROW(folder.Released(), NodeFileError);
  std::filesystem::create_directory(folder.FileOf(2));
  try {
    folder.Read(2);
    FAIL();
  } catch (const NodeFileError& error) {
    EXPECT_EQ(std::string(error.what()), folder.FileOf(2) + ": not a regular file");
  }
}

// A link at OUT/nodes made both nodes' advisors delete node-K.json and released.json in the
// link's target and write new ones there.
TEST_F(NodeFolderTest, ALinkAtTheSharedFolderIsRefusedAndItsTargetUntouched) {
  const std::filesystem::path elsewhere = out_ / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::ofstream(elsewhere / "node-0.json") << "precious";
  std::ofstream(elsewhere / "released.json") << "precious";
  std::filesystem::create_directory_symlink(elsewhere, out_ / "nodes");
  try {
    NodeFolder(out_.string()).Prepare(0);
    FAIL() << "a link at OUT/nodes was followed";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "cannot use " + (out_ / "nodes").string() +
                                             ": it is a symbolic link, which advisor does not "
                                             "follow");
  }
  EXPECT_EQ(std::filesystem::file_size(elsewhere / "node-0.json"), 8u);
  EXPECT_EQ(std::filesystem::file_size(elsewhere / "released.json"), 8u);
}

TEST_F(NodeFolderTest, LinksInTheSharedFolderAreNeverFollowed) {
  const NodeFolder folder(out_.string());
  folder.Prepare(1);
  const std::filesystem::path victim = out_ / "victim.json";
  std::ofstream(victim) << NodeSummaryToJson(NodeOne());
  std::filesystem::create_symlink(victim, folder.FileOf(1));
  try {
    folder.Read(1);
    FAIL() << "a link was read";
  } catch (const NodeFileError& error) {
    EXPECT_EQ(std::string(error.what()),
              folder.FileOf(1) + ": it is a symbolic link, which advisor does not follow");
  }
  folder.Prepare(1);
  EXPECT_FALSE(std::filesystem::is_symlink(folder.FileOf(1))) << "the link itself is removed";
  EXPECT_TRUE(std::filesystem::exists(victim));
  std::filesystem::create_symlink(victim, folder.path() + "/released.json");
  folder.Release(7);
  EXPECT_FALSE(std::filesystem::is_symlink(folder.path() + "/released.json"));
  EXPECT_EQ(folder.Released(), 7);
  std::ostringstream kept;
  kept << std::ifstream(victim).rdbuf();
  EXPECT_EQ(kept.str(), NodeSummaryToJson(NodeOne())) << "the link's target stays as it was";
}

}  // namespace
}  // namespace advisor
