// One block among identical blocks, through the bisection on hand-built windows whose steps vary
// as a CPU's do (issue #33, item 4): found at 1.96x its siblings, and with one extra parameter;
// equal blocks that noisy steps slowed are not; and a single instance beside even siblings is
// not outweighed by their sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "engine/bisect/bisection.h"
#include "engine/timeline/module_path.h"
#include "tests/bisect/fake_source.h"

namespace advisor {
namespace {

using testing::FakeModule;
using testing::FakeSource;
using testing::Leaf;

constexpr int kBlocks = 12;
constexpr long long kLinearParameters = 64 * 64 + 64;
// Windows are counted from 0: the timing steps (0), the baseline (1), the root's children (2).
constexpr int kLevelOneWindow = 2;

// root -> blocks (a ModuleList of twelve Blocks, each fc1 and fc2) and a small head. blocks.2's
// fc2 does more work, so that the block costs `planted` times another, and blocks.2 holds
// `extra_parameters` of its own (a gate) beside its Linears'.
FakeModule Blocks(double planted, long long extra_parameters) {
  FakeModule root;
  root.type = "Model";
  FakeModule blocks;
  blocks.path = "blocks";
  blocks.type = "ModuleList";
  blocks.has_forward = false;
  for (int i = 0; i < kBlocks; ++i) {
    FakeModule block;
    block.path = "blocks." + std::to_string(i);
    block.type = "Block";
    const double block_ms = block.forward_ms + block.backward_ms + 6.0;
    const double fc2_ms = i == 2 ? planted * block_ms - (block_ms - 3.0) : 3.0;
    block.children = {Leaf(block.path + ".fc1", 1.0, 2.0),
                      Leaf(block.path + ".fc2", fc2_ms / 3, 2 * fc2_ms / 3)};
    for (FakeModule& linear : block.children) linear.parameters = kLinearParameters;
    if (i == 2) block.parameters = extra_parameters;
    blocks.children.push_back(block);
  }
  root.children = {blocks, Leaf("head", 0.5, 1.0)};
  return root;
}

// A block that another process held the CPU from in one step of one window.
struct Slowed {
  int window = 0;
  int step = 0;
  std::string block;
  double factor = 1;
};

// Every module's ops vary from step to step within +-5 %, as on a quiet CPU, and the blocks in
// `slowed` run slower still in their steps.
std::function<double(int, int, const std::string&)> Noise(std::vector<Slowed> slowed) {
  return [slowed = std::move(slowed)](int window, int step, const std::string& path) {
    const std::size_t hash =
        std::hash<std::string>{}(path + "@" + std::to_string(window) + "." + std::to_string(step));
    double factor = 0.95 + 0.1 * static_cast<double>(hash % 101) / 100;
    for (const Slowed& each : slowed) {
      if (each.window == window && each.step == step && IsSameOrDescendant(path, each.block)) {
        factor *= each.factor;
      }
    }
    return factor;
  };
}

RunReport Bisect(FakeSource& source) {
  return RunBisection(source, BisectSettings{5, 16, {}}, [](const std::string&) {}).report;
}

// The reasons of the levels, one a line, for a failure's message.
std::string Reasons(const RunReport& report) {
  std::string reasons;
  for (const BisectLevel& level : report.levels) {
    reasons += level.parent + " -> " + level.chosen + ": " + level.reason + "\n";
  }
  return reasons;
}

bool AnInstanceStoodOut(const RunReport& report) {
  for (const BisectLevel& level : report.levels) {
    if (level.reason.find("same-shaped siblings") != std::string::npos) return true;
  }
  return false;
}

TEST(Siblings, ABlockAt196xItsSiblingsIsFoundThroughTheStepsNoise) {
  FakeSource source(Blocks(1.96, 0));
  // In one step another block lost the CPU for most of its time: 1.7x.
  source.slowdown = Noise({{kLevelOneWindow, 3, "blocks.7", 1.7}});
  const RunReport report = Bisect(source);
  ASSERT_TRUE(report.hotspot.has_value()) << Reasons(report);
  EXPECT_EQ(report.hotspot->path, "blocks.2.fc2") << Reasons(report);
  EXPECT_TRUE(AnInstanceStoodOut(report)) << Reasons(report);
  EXPECT_EQ(report.hotspot->confidence, "high")
      << "it stood out beyond its siblings' spread in every step: "
      << ::testing::PrintToString(report.doubts);
}

TEST(Siblings, ABlockWithOneExtraParameterIsStillComparedWithItsSiblings) {
  // 2.5x one sibling is no standout among twelve (18 % of them): only the comparison finds it.
  FakeSource source(Blocks(2.5, 64));
  source.slowdown = Noise({});
  const RunReport report = Bisect(source);
  ASSERT_TRUE(report.hotspot.has_value()) << Reasons(report);
  EXPECT_EQ(report.hotspot->path, "blocks.2.fc2") << Reasons(report);
  EXPECT_TRUE(AnInstanceStoodOut(report)) << Reasons(report);
}

TEST(Siblings, EqualBlocksSlowedInNoisyStepsAreNotFlagged) {
  FakeSource source(Blocks(1.0, 0));
  // In three steps of the level's window blocks.5 ran 2.2x, its median step among them: each
  // time another block ran slower still, so those steps' spread covers it.
  source.slowdown = Noise({{kLevelOneWindow, 0, "blocks.5", 2.2},
                           {kLevelOneWindow, 0, "blocks.8", 2.4},
                           {kLevelOneWindow, 1, "blocks.5", 2.2},
                           {kLevelOneWindow, 1, "blocks.9", 2.4},
                           {kLevelOneWindow, 2, "blocks.5", 2.2},
                           {kLevelOneWindow, 2, "blocks.10", 2.4}});
  const RunReport report = Bisect(source);
  EXPECT_FALSE(AnInstanceStoodOut(report)) << Reasons(report);
  ASSERT_TRUE(report.hotspot.has_value()) << Reasons(report);
  EXPECT_EQ(report.hotspot->path, "blocks")
      << "the even blocks, no one of them: " << Reasons(report);
  // Not even a window's medians took blocks.5 for the place to descend into: a re-run that
  // overruled them would have left a doubt naming it.
  const std::vector<std::string>& candidates = report.hotspot->candidates;
  EXPECT_EQ(std::count(candidates.begin(), candidates.end(), "blocks.5"), 0)
      << ::testing::PrintToString(report.doubts);
  EXPECT_EQ(report.hotspot->confidence, "high") << ::testing::PrintToString(report.doubts);
}

// point_graph's level 1 (issue #33): geometry, one instance, builds an N x N distance matrix in its
// own ops, twice what each of three even message layers costs; the layers hold more only together.
FakeModule GeometryBesideLayers() {
  FakeModule root;
  root.type = "PartSegNet";
  FakeModule geometry;
  geometry.path = "geometry";
  geometry.type = "EdgeGeometry";
  geometry.forward_op = "aten::sub";
  geometry.backward_op = "SubBackward0";
  geometry.forward_ms = 5.0;
  geometry.backward_ms = 9.0;
  geometry.children = {Leaf("geometry.rbf", 0.2, 0.4)};
  FakeModule layers;
  layers.path = "layers";
  layers.type = "ModuleList";
  layers.has_forward = false;
  for (int i = 0; i < 3; ++i) {
    FakeModule layer;
    layer.path = "layers." + std::to_string(i);
    layer.type = "MessageLayer";
    layer.children = {Leaf(layer.path + ".msg", 1.5, 3.0), Leaf(layer.path + ".upd", 0.8, 1.6)};
    for (FakeModule& linear : layer.children) linear.parameters = kLinearParameters;
    layers.children.push_back(layer);
  }
  root.children = {Leaf("embed", 0.1, 0.2), geometry, layers, Leaf("out", 0.1, 0.2)};
  return root;
}

TEST(Siblings, AnInstanceTwiceEachOfThreeEvenLayersIsChosenOverTheirSum) {
  FakeSource source(GeometryBesideLayers());
  source.slowdown = Noise({});
  const RunReport report = Bisect(source);
  ASSERT_FALSE(report.levels.empty());
  const BisectLevel& level_one = report.levels.front();
  ASSERT_FALSE(level_one.candidates.empty());
  EXPECT_EQ(level_one.candidates.front().path, "layers") << "their sum is the hottest row";
  EXPECT_EQ(level_one.chosen, "geometry") << Reasons(report);
  ASSERT_TRUE(report.hotspot.has_value()) << Reasons(report);
  EXPECT_EQ(report.hotspot->path, "geometry") << Reasons(report);
  EXPECT_EQ(report.hotspot->op, "SubBackward0");
}

}  // namespace
}  // namespace advisor
