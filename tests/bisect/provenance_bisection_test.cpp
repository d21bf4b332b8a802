// The bisection inside a model compiled whole (issue #29): its levels taken from the baseline's
// compiled kernels attributed to instances, without a window, where the attribution covers enough
// of the compiled time; in windows (the script door's regional compilation) where it does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/bisect/bisection.h"
#include "engine/bisect/provenance_levels.h"
#include "tests/bisect/fake_source.h"

namespace advisor {
namespace {

using testing::FakeModule;
using testing::FakeSource;
using testing::Leaf;

// A compiled MLP: embed, two Blocks in a ModuleList (fc1, fc2 each), head; every op an
// "aten::mm", as a compiled graph's extern matrix multiplies are. blocks.1.fc1 holds most of the
// step, its backward twice its forward.
FakeModule CompiledMlp() {
  FakeModule root;
  root.type = "Mlp";
  root.compiled = true;
  root.forward_op = root.backward_op = "aten::mm";
  root.forward_ms = root.backward_ms = 0.05;
  root.children.push_back(Leaf("embed", 0.5, 1.0));
  FakeModule blocks;
  blocks.path = "blocks";
  blocks.type = "ModuleList";
  blocks.has_forward = false;
  for (int i = 0; i < 2; ++i) {
    const std::string path = "blocks." + std::to_string(i);
    FakeModule block;
    block.path = path;
    block.type = "Block";
    block.forward_ms = block.backward_ms = 0.05;  // its residual add
    block.children.push_back(Leaf(path + ".fc1", i == 1 ? 10.0 : 0.5, i == 1 ? 20.0 : 1.0));
    block.children.push_back(Leaf(path + ".fc2", 0.5, 1.0));
    blocks.children.push_back(block);
  }
  root.children.push_back(blocks);
  root.children.push_back(Leaf("head", 0.5, 1.0));
  for (FakeModule* module : {&root.children[0], &root.children[2]}) {
    module->forward_op = module->backward_op = "aten::mm";
  }
  for (FakeModule& block : root.children[1].children) {
    block.forward_op = block.backward_op = "aten::mm";
    for (FakeModule& linear : block.children) linear.forward_op = linear.backward_op = "aten::mm";
  }
  return root;
}

// The extern calls of the compiled model's forward and backward graphs in the order the fake runs
// its modules' ops (a module's forward op before its children's, its backward op after theirs),
// each giving `share` of its time to its module (the rest to no instance).
void AddForwardCalls(const FakeModule& module, double share, CompiledGraphSources& forward) {
  if (module.has_forward) forward.extern_calls.push_back({"aten::mm", {{module.path, share}}});
  for (const FakeModule& child : module.children) AddForwardCalls(child, share, forward);
}

void AddBackwardCalls(const FakeModule& module, double share, CompiledGraphSources& backward) {
  for (auto child = module.children.rbegin(); child != module.children.rend(); ++child) {
    AddBackwardCalls(*child, share, backward);
  }
  if (module.has_forward) backward.extern_calls.push_back({"aten::mm", {{module.path, share}}});
}

std::vector<CompiledGraphSources> TablesOf(const FakeModule& root, double share) {
  CompiledGraphSources forward;
  CompiledGraphSources backward;
  backward.backward = true;
  AddForwardCalls(root, share, forward);
  AddBackwardCalls(root, share, backward);
  return {forward, backward};
}

BisectOutcome Bisect(FakeSource& source) {
  return RunBisection(source, BisectSettings{5, 16, {}}, [](const std::string&) {});
}

int LevelWindows(const FakeSource& source) {
  return static_cast<int>(std::count_if(
      source.requests().begin(), source.requests().end(), [](const WindowRequest& request) {
        return request.instrumentation == Instrumentation::kChildrenOf;
      }));
}

bool SaysSomewhere(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

TEST(ProvenanceBisection, ACompiledModelIsDescendedByItsKernelsWithoutALevelWindow) {
  FakeSource source(CompiledMlp());
  source.compiled_graphs = TablesOf(CompiledMlp(), 1.0);
  const RunReport report = Bisect(source).report;

  EXPECT_EQ(LevelWindows(source), 0) << "no level's window: the compilation unchanged";
  ASSERT_TRUE(report.compiled_kernels.has_value());
  ASSERT_TRUE(report.hotspot.has_value()) << report.levels.size();
  EXPECT_EQ(report.hotspot->path, "blocks.1.fc1");
  EXPECT_EQ(report.hotspot->phase, "backward") << "its backward mm is its costliest";
  EXPECT_EQ(report.hotspot->op, "aten::mm");
  EXPECT_EQ(report.hotspot->fused_ops, "") << "an extern call fuses nothing";
  EXPECT_NEAR(report.hotspot->ms, 20.0, 0.5);
  EXPECT_NEAR(report.hotspot->module_ms, 30.0, 0.5);
  ASSERT_FALSE(report.hotspot->top_ops.empty());
  EXPECT_EQ(report.hotspot->top_ops[0].name, "aten::mm");

  // The root's level chooses the group, its members' level blocks.1, and blocks.1's fc1.
  std::vector<std::string> path;
  for (const BisectLevel& level : report.levels) {
    EXPECT_EQ(level.measured_by, LevelMeasure::kProvenance) << level.parent;
    EXPECT_EQ(level.steps_backing, 5) << "every step alone leads there: " << level.parent;
    path.push_back(level.chosen);
  }
  EXPECT_EQ(path, (std::vector<std::string>{"blocks", "blocks.1", "blocks.1.fc1"}));
  ASSERT_FALSE(report.levels.front().candidates.empty());
  EXPECT_EQ(report.levels.front().candidates.front().path, "blocks");
  EXPECT_GT(report.levels.front().candidates.front().share, 0.8);
  EXPECT_TRUE(SaysSomewhere(report.data_quality, "measured by provenance"));
  EXPECT_FALSE(SaysSomewhere(report.data_quality, "regional compilation"));
}

TEST(ProvenanceBisection, BelowTheCoverageBarTheLevelsAreMeasuredInWindowsAndTheReportSaysWhy) {
  FakeSource source(CompiledMlp());
  // Half of every call's nodes in no instance: 50 % attributed.
  source.compiled_graphs = TablesOf(CompiledMlp(), 0.5);
  const RunReport report = Bisect(source).report;

  EXPECT_GT(LevelWindows(source), 0);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.1.fc1") << "the windows find it too";
  for (const BisectLevel& level : report.levels) {
    EXPECT_EQ(level.measured_by, LevelMeasure::kRegionalCompilation) << level.parent;
  }
  EXPECT_TRUE(SaysSomewhere(report.data_quality, "measured by regional compilation"));
  EXPECT_TRUE(SaysSomewhere(report.data_quality, "50% of the compiled graphs' host op time"))
      << "the share below the bar";
  EXPECT_TRUE(SaysSomewhere(report.data_quality, "below the 80%"));
}

TEST(ProvenanceBisection, WithoutKernelTablesTheLevelsAreMeasuredInWindows) {
  FakeSource source(CompiledMlp());
  const RunReport report = Bisect(source).report;

  EXPECT_GT(LevelWindows(source), 0);
  EXPECT_FALSE(report.compiled_kernels.has_value());
  ASSERT_FALSE(report.levels.empty());
  EXPECT_EQ(report.levels.front().measured_by, LevelMeasure::kRegionalCompilation);
  EXPECT_TRUE(SaysSomewhere(report.data_quality, "no kernel provenance was recorded"));
}

TEST(ProvenanceBisection, AModelWithNothingCompiledIsMeasuredWithMarkers) {
  FakeModule eager = CompiledMlp();
  eager.compiled = false;
  FakeSource source(eager);
  const RunReport report = Bisect(source).report;

  ASSERT_FALSE(report.levels.empty());
  for (const BisectLevel& level : report.levels) {
    EXPECT_EQ(level.measured_by, LevelMeasure::kMarkers) << level.parent;
  }
  EXPECT_FALSE(SaysSomewhere(report.data_quality, "compiled model"));
}

TEST(ProvenanceLevels, AGeneratedKernelsNameListsTheOpsItFused) {
  EXPECT_EQ(FusedOps("triton_red_fused_native_layer_norm_1"), "native_layer_norm");
  EXPECT_EQ(FusedOps("triton_poi_fused_gelu_view_3"), "gelu_view");
  EXPECT_EQ(FusedOps("cpp_fused_add_gelu_0"), "add_gelu");
  EXPECT_EQ(FusedOps("aten::mm"), "");
  EXPECT_EQ(FusedOps("triton_tem_mm_2"), "") << "a template's name lists no fused op";
}

}  // namespace
}  // namespace advisor
