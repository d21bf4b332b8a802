#include "engine/analysis/attribution.h"

#include <gtest/gtest.h>

#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::TimelineBuilder;

// Two identical steps: "a" runs a 2 ms forward op (with a nested op) and a 6 ms backward op,
// "a.b" a 1 ms forward op; the loss (outside modules) 1 ms; the optimizer 3 ms.
Timeline TwoSteps() {
  TimelineBuilder b;
  for (double t : {0.0, 100.0}) {
    b.Step(t, t + 10, t + 30, t + 40)
        .Forward("a", t + 1, t + 7)
        .Op("aten::linear", t + 2, t + 4)
        .Op("aten::addmm", t + 2.5, t + 3.5)
        .Forward("a.b", t + 5, t + 6.5)
        .Op("aten::gelu", t + 5.2, t + 6.2)
        .Op("aten::cross_entropy", t + 8, t + 9)
        .Backward("a", t + 11, t + 20)
        .Op("GatherBackward0", t + 12, t + 18, 1, OpScope::kBackward)
        .Op("aten::add_", t + 31, t + 34);
  }
  return b.Build();
}

TEST(WindowAttribution, SelfAndInclusiveCostsPerStep) {
  const Timeline timeline = TwoSteps();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  EXPECT_EQ(attribution.steps(), 2);
  EXPECT_FALSE(attribution.has_gpu());

  const PhaseCosts self_a = attribution.Self("a");
  EXPECT_NEAR(self_a.forward.host_ms, 2.0, 1e-9) << "nested aten::addmm is inside aten::linear";
  EXPECT_NEAR(self_a.backward.host_ms, 6.0, 1e-9);

  const PhaseCosts inclusive_a = attribution.Inclusive("a");
  EXPECT_NEAR(inclusive_a.forward.host_ms, 3.0, 1e-9);
  EXPECT_NEAR(attribution.Inclusive("a.b").forward.host_ms, 1.0, 1e-9);
  EXPECT_NEAR(attribution.Self("").forward.host_ms, 1.0, 1e-9);

  const PhaseCosts step = attribution.Step();
  EXPECT_NEAR(step.forward.host_ms, 4.0, 1e-9);
  EXPECT_NEAR(step.backward.host_ms, 6.0, 1e-9);
  EXPECT_NEAR(step.optimizer.host_ms, 3.0, 1e-9);
  EXPECT_EQ(attribution.Modules(), (std::vector<std::string>{"a", "a.b"}));
}

TEST(WindowAttribution, TopOpsOfAModuleIncludeItsDescendantsHottestFirst) {
  const Timeline timeline = TwoSteps();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  const std::vector<OpCost> ops = attribution.TopOps("a");
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].name, "GatherBackward0");
  EXPECT_EQ(ops[0].phase, Phase::kBackward);
  EXPECT_NEAR(ops[0].calls, 1.0, 1e-9);
  EXPECT_EQ(ops[1].name, "aten::linear");
  EXPECT_EQ(ops[2].name, "aten::gelu");
}

TEST(WindowAttribution, RanksByDeviceTimeWhenTheGpuProbeRan) {
  const Timeline timeline = TwoSteps();
  std::vector<double> gpu_ms(timeline.ops.size(), 0.0);
  // The nested addmm launched 20 ms of kernels in each step: its top-level op owns them.
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    if (timeline.ops[i].name == "aten::addmm") gpu_ms[i] = 20.0;
  }
  const WindowAttribution attribution(timeline, PlaceOps(timeline), gpu_ms);
  EXPECT_TRUE(attribution.has_gpu());
  EXPECT_NEAR(attribution.Self("a").forward.gpu_ms, 20.0, 1e-9);
  const std::vector<OpCost> ops = attribution.TopOps("a");
  EXPECT_EQ(ops[0].name, "aten::linear");
}

TEST(IsSameOrDescendant, MatchesWholePathComponents) {
  EXPECT_TRUE(IsSameOrDescendant("blocks.1", "blocks"));
  EXPECT_TRUE(IsSameOrDescendant("blocks", "blocks"));
  EXPECT_FALSE(IsSameOrDescendant("blocks10", "blocks1"));
  EXPECT_FALSE(IsSameOrDescendant("blocks.10", "blocks.1"));
  EXPECT_TRUE(IsSameOrDescendant("anything", ""));
}

TEST(WindowAttribution, DataPhaseOpsCountApartFromForward) {
  TimelineBuilder b;
  for (double t : {0.0, 100.0}) {
    b.StepWithData(t, t + 20, t + 30, t + 40, t + 50)
        .Op("aten::flip", t + 1, t + 16)
        .Forward("a", t + 21, t + 27)
        .Op("aten::linear", t + 22, t + 25);
  }
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  const PhaseCosts step = attribution.Step();
  EXPECT_NEAR(step.data.host_ms, 15.0, 1e-9);
  EXPECT_NEAR(step.forward.host_ms, 3.0, 1e-9) << "preparing the batch is not forward";
  EXPECT_NEAR(attribution.Inclusive("a").data.host_ms, 0.0, 1e-9);
  const std::vector<OpCost> ops = attribution.TopOps("");
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops.front().name, "aten::flip");
  EXPECT_EQ(ops.front().phase, Phase::kData);
  EXPECT_EQ(ops.front().module, "");
}

}  // namespace
}  // namespace advisor
