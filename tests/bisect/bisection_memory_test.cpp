#include "engine/bisect/bisection_memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace advisor {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

// One step whose forward calls each of `instances` in turn, each allocating its MiB and keeping
// them for the backward: a window with those instances instrumented.
Timeline WindowOf(const std::vector<std::pair<std::string, int>>& instances) {
  Timeline timeline;
  timeline.steps.push_back(StepOfPhases(0, 0, 0, 500, 900, 1000));
  TimeNs time = 10;
  std::uint64_t address = 1;
  for (const auto& [path, mib] : instances) {
    timeline.markers.push_back({ModulePath(path), MarkerKind::kForwardEnter, 1, time});
    timeline.memory.push_back({address++, mib * kMiB, -1, 1, time + 1});
    timeline.markers.push_back({ModulePath(path), MarkerKind::kForwardExit, 1, time + 2});
    time += 10;
  }
  return timeline;
}

// The uninstrumented baseline: one step, `mib` allocated in its forward.
Timeline BaselineOf(int mib) {
  Timeline timeline;
  timeline.steps.push_back(StepOfPhases(0, 0, 0, 500, 900, 1000));
  timeline.memory.push_back({1, mib * kMiB, -1, 1, 20});
  return timeline;
}

TEST(BisectionMemory, NarrowsTheHolderLevelByLevel) {
  BisectionMemory memory(std::nullopt);
  memory.AddBaseline(BaselineOf(8));
  EXPECT_EQ(memory.NextParent(), std::nullopt) << "no level yet: nothing to narrow";
  memory.AddLevel("", WindowOf({{"encoder", 6}, {"decoder", 2}}));
  EXPECT_EQ(memory.NextParent(), "encoder");
  memory.AddLevel("encoder", WindowOf({{"encoder.0", 1}, {"encoder.1", 5}}));
  EXPECT_EQ(memory.NextParent(), "encoder.1");
  RunReport report;
  memory.Fill(report);
  ASSERT_TRUE(report.memory && report.memory->peak);
  EXPECT_EQ(report.memory->peak->path, "encoder.1");
  EXPECT_DOUBLE_EQ(report.memory->peak_allocated_mb, 6.0) << "the narrowest window's peak";
  ASSERT_EQ(report.memory->modules.size(), 4u);
  EXPECT_EQ(report.memory->modules[0].path, "encoder");
  EXPECT_DOUBLE_EQ(*report.memory->modules[0].kept_for_backward_mb, 6.0);
}

TEST(BisectionMemory, AHolderOffTheLevelsPathWaitsForItsOwnWindow) {
  BisectionMemory memory(std::nullopt);
  memory.AddBaseline(BaselineOf(1));
  memory.AddLevel("", WindowOf({{"encoder", 6}, {"decoder", 2}}));
  memory.AddLevel("decoder", WindowOf({{"decoder.0", 1}, {"decoder.1", 1}}));  // the time's way
  EXPECT_EQ(memory.NextParent(), "encoder");
  RunReport report;
  memory.Fill(report);
  EXPECT_EQ(report.memory->peak->path, "encoder");
}

TEST(BisectionMemory, RepeatedBlocksHoldingAlikeAreNamedBesideTheHolder) {
  BisectionMemory memory(std::nullopt);
  memory.AddBaseline(BaselineOf(12));
  memory.AddLevel("", WindowOf({{"h.0", 4}, {"h.1", 4}, {"h.2", 4}, {"head", 1}}));
  memory.AddLevel("h.0", WindowOf({{"h.0.attn", 1}, {"h.0.act", 3}}));
  RunReport report;
  memory.Fill(report);
  ASSERT_TRUE(report.memory && report.memory->peak);
  EXPECT_EQ(report.memory->peak->path, "h.0.act") << "h.0 is first of its equals by name";
  EXPECT_EQ(report.memory->peak->tied_with, (std::vector<std::string>{"h.1", "h.2"}));
  ASSERT_TRUE(report.memory->timeline.has_value()) << "the chart of the window naming the holder";
  const std::vector<MemorySpan>& spans = report.memory->timeline->spans;
  EXPECT_TRUE(std::any_of(spans.begin(), spans.end(),
                          [](const MemorySpan& span) { return span.label == "h.0.act"; }));
}

TEST(BisectionMemory, StopsWhereTheHolderKeepsTheBytesItself) {
  BisectionMemory memory(std::nullopt);
  memory.AddBaseline(BaselineOf(1));
  memory.AddLevel("", WindowOf({{"encoder", 6}}));
  memory.AddLevel("encoder", WindowOf({{"encoder", 6}, {"encoder.0", 1}}));
  EXPECT_EQ(memory.NextParent(), std::nullopt);
}

TEST(BisectionMemory, GrowthOnlyWhereEveryStepEndHoldsMore) {
  Timeline baseline;
  for (int i = 0; i < 4; ++i) {
    const TimeNs start = 1000 * i;
    baseline.steps.push_back(StepOfPhases(i, start, start, start + 500, start + 900, start + 1000));
    baseline.memory.push_back({static_cast<std::uint64_t>(i + 1), kMiB, -1, 1, start + 10});
  }
  BisectionMemory growing(std::nullopt);
  growing.AddBaseline(baseline);
  RunReport report;
  growing.Fill(report);
  ASSERT_TRUE(report.memory->growth_mb_per_step.has_value());
  EXPECT_DOUBLE_EQ(*report.memory->growth_mb_per_step, 1.0);

  baseline.memory.push_back({2, -kMiB, -1, 1, 2500});  // step 2 frees what step 1 kept
  BisectionMemory steady(std::nullopt);
  steady.AddBaseline(baseline);
  RunReport steady_report;
  steady.Fill(steady_report);
  EXPECT_FALSE(steady_report.memory->growth_mb_per_step.has_value());
}

}  // namespace
}  // namespace advisor
