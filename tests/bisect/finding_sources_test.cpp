// Every finding gets its line in the user's code, not only the hot spot's.
#include "engine/bisect/finding_sources.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

// One window: a forward aten::gather in `module` and the GatherBackward0 node it made.
LabelledWindow GatherWindow(const std::string& module) {
  LabelledWindow window;
  OpEvent forward{"aten::gather", OpScope::kForward, 0, 1, 100, 200};
  OpEvent backward{"GatherBackward0", OpScope::kBackward, 0, 2, 300, 400};
  window.timeline.ops = {forward, backward};
  window.timeline.SetSequence(0, {7, 0});
  window.timeline.SetSequence(1, {7, 1});
  OpPlacement placed;
  placed.top_level = 0;
  window.placements = {{placed, module}, {placed, module}};
  window.placements[1].top_level = 1;
  return window;
}

Finding FindingAt(const std::string& path, const std::string& op) {
  Finding finding;
  finding.rule = "test";
  finding.path = path;
  finding.op = op;
  return finding;
}

TEST(LocateFindings, AFindingAwayFromTheHotSpotGetsTheLineOfItsForwardOp) {
  Hotspot hotspot;
  hotspot.path = "blocks.3";
  hotspot.op = "aten::sort";
  hotspot.source = SourceLocation{"model.py", 10, "x.sort()"};
  std::vector<Finding> findings = {FindingAt("blocks.1.select", "GatherBackward0"),
                                   FindingAt("blocks.3", "aten::sort"), FindingAt("", "")};
  std::vector<std::pair<std::string, std::string>> asked;
  const SourceLocator locate = [&](const std::string& path, const std::string& op) {
    asked.emplace_back(path, op);
    return std::optional<SourceLocation>(SourceLocation{"model.py", 42, "x.gather(1, i)"});
  };
  LocateFindings(findings, hotspot, {GatherWindow("blocks.1.select")}, locate);

  ASSERT_TRUE(findings[0].source.has_value());
  EXPECT_EQ(findings[0].source->line, 42);
  ASSERT_EQ(asked.size(), 1u);  // the hot spot's finding takes the hot spot's line
  EXPECT_EQ(asked[0], std::make_pair(std::string("blocks.1.select"), std::string("aten::gather")));
  ASSERT_TRUE(findings[1].source.has_value());
  EXPECT_EQ(findings[1].source->line, 10);
  EXPECT_FALSE(findings[2].source.has_value()) << "a finding about the whole step has no line";
}

TEST(LocateFindings, ABackwardNodeNoWindowPlacedInItsModuleIsMatchedAnywhere) {
  std::vector<Finding> findings = {FindingAt("head", "GatherBackward0")};
  std::string asked_op;
  const SourceLocator locate = [&](const std::string&, const std::string& op) {
    asked_op = op;
    return std::optional<SourceLocation>();
  };
  LocateFindings(findings, std::nullopt, {GatherWindow("blocks.1")}, locate);
  EXPECT_EQ(asked_op, "aten::gather");
  EXPECT_FALSE(findings[0].source.has_value());
}

TEST(LocateFindings, AFindingAboutAnOpAnywhereIsLocatedInTheModuleThatRanIt) {
  Hotspot hotspot;
  hotspot.path = "blocks.1.select";
  hotspot.op = "GatherBackward0";
  hotspot.source = SourceLocation{"model.py", 7, "x.gather(1, i)"};
  // deterministic-algorithms-cost names the op, not a module; no window ran aten::sort.
  std::vector<Finding> findings = {FindingAt("", "GatherBackward0"), FindingAt("", "aten::sort")};
  int asked = 0;
  const SourceLocator locate = [&](const std::string&, const std::string&) {
    ++asked;
    return std::optional<SourceLocation>();
  };
  LocateFindings(findings, hotspot, {GatherWindow("blocks.1.select")}, locate);
  ASSERT_TRUE(findings[0].source.has_value());
  EXPECT_EQ(findings[0].source->line, 7) << "the hot spot's module and op: the hot spot's line";
  EXPECT_EQ(findings[0].path, "") << "the finding still says what the rule said";
  EXPECT_FALSE(findings[1].source.has_value());
  EXPECT_EQ(asked, 0) << "an op no module ran is not looked up";

  Finding named = FindingAt("", "GatherBackward0");
  named.source = SourceLocation{"dataset.py", 12, "mask = dilate(mask)"};
  std::vector<Finding> with_line = {named};
  LocateFindings(with_line, hotspot, {GatherWindow("blocks.1.select")}, locate);
  EXPECT_EQ(with_line[0].source->file, "dataset.py") << "a line the rule named stays";
}

TEST(LocateFindings, AnOpThatRunsInSeveralModulesIsLocatedWhereItCostMost) {
  // ConvolutionBackward0 in two layers: the output conv's first in time (backward runs the last
  // layer first), the wide layer's 30x as long.
  LabelledWindow window;
  window.timeline.ops = {{"aten::conv2d", OpScope::kForward, 0, 1, 0, 10},
                         {"aten::conv2d", OpScope::kForward, 0, 1, 20, 40},
                         {"ConvolutionBackward0", OpScope::kBackward, 0, 2, 100, 110},
                         {"ConvolutionBackward0", OpScope::kBackward, 0, 2, 200, 500}};
  const OpSequence sequences[] = {{7, 0}, {8, 0}, {8, 1}, {7, 1}};
  for (std::size_t i = 0; i < 4; ++i) window.timeline.SetSequence(i, sequences[i]);
  const OpPlacement placed;
  window.placements = {{placed, "up1"}, {placed, "out"}, {placed, "out"}, {placed, "up1"}};
  for (int i = 0; i < 4; ++i) window.placements[i].top_level = i;
  std::vector<Finding> findings = {FindingAt("", "ConvolutionBackward0")};
  std::string asked_path;
  std::string asked_op;
  const SourceLocator locate = [&](const std::string& path, const std::string& op) {
    asked_path = path;
    asked_op = op;
    return std::optional<SourceLocation>(SourceLocation{"train.py", 58, "u1 = self.up1(x)"});
  };
  LocateFindings(findings, std::nullopt, {window}, locate);
  EXPECT_EQ(asked_path, "up1");
  EXPECT_EQ(asked_op, "aten::conv2d");
  ASSERT_TRUE(findings[0].source.has_value());
  EXPECT_EQ(findings[0].source->line, 58);
}

}  // namespace
}  // namespace advisor
