#include "engine/analysis/attribution.h"

#include <gtest/gtest.h>

#include <map>

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

// The trace report asks the inclusive costs of every module at once; asked one by one, 20,000
// sibling modules took 15 s to analyse.
TEST(WindowAttribution, InclusiveOfEachIsInclusiveOfEveryPathAskedFor) {
  const Timeline timeline = TwoSteps();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  const std::vector<ModulePath> paths = {"a.b", "", "a", "never.seen", "a"};
  const std::vector<PhaseCosts> each = attribution.InclusiveOfEach(paths);
  ASSERT_EQ(each.size(), paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const PhaseCosts alone = attribution.Inclusive(paths[i]);
    for (const Phase phase : {Phase::kData, Phase::kForward, Phase::kBackward, Phase::kOptimizer}) {
      EXPECT_EQ(each[i][phase].host_ms, alone[phase].host_ms) << paths[i] << " " << i;
      EXPECT_EQ(each[i][phase].gpu_ms, alone[phase].gpu_ms) << paths[i] << " " << i;
    }
  }
  EXPECT_NEAR(each[1].forward.host_ms, 3.0, 1e-9) << "\"\" holds every module, not the loss";
  EXPECT_NEAR(each[2].backward.host_ms, 6.0, 1e-9);
  EXPECT_EQ(each[3].forward.host_ms, 0.0);
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
  // A top-level op's own device time is what it launched outside the ops it calls: none.
  EXPECT_NEAR(ops[0].cost.gpu_ms, 20.0, 1e-9);
  EXPECT_NEAR(ops[0].self_gpu_ms, 0.0, 1e-9);
}

TEST(WindowAttribution, StepOpsListEveryOpWithInclusiveHostAndDeviceTime) {
  TimelineBuilder b;
  for (double t : {0.0, 100.0}) {
    b.Step(t, t + 10, t + 30, t + 40)
        .Forward("a", t + 1, t + 9)
        .Op("aten::linear", t + 2, t + 6)
        .Op("aten::addmm", t + 2.5, t + 5.5)
        .Op("aten::mm", t + 3, t + 4)  // nested two deep
        .Op("aten::addmm", t + 7, t + 8)  // a top-level call of the same op
        .Op("MmBackward0", t + 12, t + 18, 1, OpScope::kBackward)
        .Op("aten::mm", t + 13, t + 17);
  }
  const Timeline timeline = b.Build();
  std::vector<double> gpu_ms(timeline.ops.size(), 0.0);
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    if (timeline.ops[i].name == "aten::mm") gpu_ms[i] = 5.0;  // only the innermost ops launch
  }
  const WindowAttribution attribution(timeline, PlaceOps(timeline), gpu_ms);
  std::map<std::pair<Phase, std::string>, OpCost> ops;
  for (const OpCost& op : attribution.StepOps()) ops[{op.phase, op.name}] = op;
  ASSERT_EQ(ops.size(), 5u);

  const OpCost& addmm = ops.at({Phase::kForward, "aten::addmm"});
  EXPECT_NEAR(addmm.calls, 2.0, 1e-9) << "nested and top-level calls alike";
  EXPECT_NEAR(addmm.cost.host_ms, 4.0, 1e-9);
  EXPECT_NEAR(addmm.cost.gpu_ms, 5.0, 1e-9) << "the kernels of the mm it calls";
  EXPECT_NEAR(ops.at({Phase::kForward, "aten::linear"}).cost.gpu_ms, 5.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kForward, "aten::mm"}).cost.host_ms, 1.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kBackward, "MmBackward0"}).cost.gpu_ms, 5.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kBackward, "aten::mm"}).cost.host_ms, 4.0, 1e-9);

  // What each launched itself: the mm's kernels, once, where gpu_ms counts them in every caller.
  double self_gpu_ms = 0;
  for (const auto& [key, op] : ops) self_gpu_ms += op.self_gpu_ms;
  EXPECT_NEAR(self_gpu_ms, 10.0, 1e-9) << "the forward's mm and the backward's, 5 ms each";
  EXPECT_NEAR(addmm.self_gpu_ms, 0.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kForward, "aten::mm"}).self_gpu_ms, 5.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kBackward, "MmBackward0"}).self_gpu_ms, 0.0, 1e-9);

  // Hottest first by device time; the top-level view is unchanged.
  EXPECT_DOUBLE_EQ(attribution.StepOps().front().cost.gpu_ms, 5.0);
  EXPECT_EQ(attribution.TopOps("a").size(), 2u) << "linear and the top-level addmm";
}

// torch 2 dispatches aten::std to an aten::std inside it: the op table counts the recursion as
// one call of the outermost's time, and each level's self time once.
TEST(WindowAttribution, StepOpsCountAnOpNestedInItsOwnNameOnce) {
  TimelineBuilder b;
  for (double t : {0.0, 100.0}) {
    b.Step(t, t + 10, t + 30, t + 40)
        .Forward("a", t + 1, t + 9)
        .Op("aten::std", t + 1, t + 5)
        .Op("aten::std", t + 1.5, t + 4.5)
        .Op("aten::sub", t + 2, t + 3)
        .Op("aten::std", t + 6, t + 7)  // a call of its own
        .Op("MmBackward0", t + 12, t + 18, 1, OpScope::kBackward);
  }
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  std::map<std::pair<Phase, std::string>, OpCost> ops;
  for (const OpCost& op : attribution.StepOps()) ops[{op.phase, op.name}] = op;

  const OpCost& std_op = ops.at({Phase::kForward, "aten::std"});
  EXPECT_NEAR(std_op.calls, 2.0, 1e-9) << "two calls a step, the nested one part of the first";
  EXPECT_NEAR(std_op.cost.host_ms, 5.0, 1e-9) << "4 ms and 1 ms: the outermost calls' time";
  // Outside the aten::sub: 1 ms in the outer level, 2 in the inner, and the second call's 1.
  EXPECT_NEAR(std_op.self_host_ms, 4.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kForward, "aten::sub"}).cost.host_ms, 1.0, 1e-9);
  EXPECT_NEAR(attribution.TopOps("a").front().calls, 2.0, 1e-9) << "the top-level view agrees";
}

// Lightning's automatic optimisation: the optimizer's range (`Optimizer.step#AdamW.step`) opens
// before the closure's forward and closes after the update, with the forward, the loss and the
// backward inside it. The op table counts it in the optimizer phase it ends in, at its time there
// (4 ms, 2 of them outside the update's op); not 19.5 ms of the data phase it starts in.
TEST(WindowAttribution, StepOpsCountARangeAroundTheModelInThePhaseItEndsIn) {
  TimelineBuilder b;
  for (double t : {0.0, 100.0}) {
    b.Stretches(t, {{Phase::kData, t + 3},
                    {Phase::kForward, t + 10},
                    {Phase::kLoss, t + 11},
                    {Phase::kBackward, t + 18},
                    {Phase::kOptimizer, t + 22}})
        .Op("aten::to", t + 0.5, t + 1)  // the batch's receipt, before the range
        .Op("Optimizer.step#AdamW.step", t + 2.5, t + 22, 1, OpScope::kUser)
        .Forward("model", t + 3, t + 10)
        .Op("aten::linear", t + 4, t + 8)
        .Op("aten::cross_entropy", t + 10.2, t + 10.8)
        .Backward("model", t + 11, t + 17.5)
        .Op("AddmmBackward0", t + 12, t + 16, 1, OpScope::kBackward)
        .Op("aten::_foreach_add_", t + 19, t + 21);
  }
  const Timeline timeline = b.Build();
  std::vector<double> gpu_ms(timeline.ops.size(), 0.0);
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    if (timeline.ops[i].name == "aten::linear") gpu_ms[i] = 3.0;
    if (timeline.ops[i].name == "aten::_foreach_add_") gpu_ms[i] = 1.5;
  }
  const WindowAttribution attribution(timeline, PlaceOps(timeline), gpu_ms);
  std::map<std::pair<Phase, std::string>, OpCost> ops;
  for (const OpCost& op : attribution.StepOps()) ops[{op.phase, op.name}] = op;

  EXPECT_EQ(ops.count({Phase::kData, "Optimizer.step#AdamW.step"}), 0u);
  const OpCost& range = ops.at({Phase::kOptimizer, "Optimizer.step#AdamW.step"});
  EXPECT_NEAR(range.calls, 1.0, 1e-9);
  EXPECT_NEAR(range.cost.host_ms, 4.0, 1e-9) << "from the backward's end to its own";
  EXPECT_NEAR(range.self_host_ms, 2.0, 1e-9) << "less the update's aten::_foreach_add_";
  EXPECT_NEAR(range.cost.gpu_ms, 1.5, 1e-9) << "the update's kernels, not the forward's";
  EXPECT_NEAR(range.self_gpu_ms, 0.0, 1e-9);
  // The model's ops inside it are their phases' own, as before.
  EXPECT_NEAR(ops.at({Phase::kForward, "aten::linear"}).cost.host_ms, 4.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kBackward, "AddmmBackward0"}).cost.host_ms, 4.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kOptimizer, "aten::_foreach_add_"}).cost.host_ms, 2.0, 1e-9);
  // The hottest op of the step is the forward's linear, not the range around the whole step.
  EXPECT_EQ(attribution.StepOps().front().name, "aten::linear");
  EXPECT_NEAR(attribution.Step().optimizer.host_ms, 2.0, 1e-9);
  EXPECT_NEAR(attribution.Step().forward.host_ms, 4.0, 1e-9);
}

// The same step in a window that instruments no module (the baseline's): no marker falls inside
// the range, but the step's phases change inside it, and its ops are still their phases' own.
TEST(WindowAttribution, ARangeAroundTheModelIsNoTopLevelOpWithoutMarkers) {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kData, 3},
                  {Phase::kForward, 10},
                  {Phase::kLoss, 11},
                  {Phase::kBackward, 18},
                  {Phase::kOptimizer, 22}})
      .Op("Optimizer.step#AdamW.step", 2.5, 22, 1, OpScope::kUser)
      .Op("aten::linear", 4, 8)
      .Op("AddmmBackward0", 12, 16, 1, OpScope::kBackward)
      .Op("aten::_foreach_add_", 19, 21)
      // A DataLoader's pin-memory thread beside the backward and the update: an op of its own
      // thread, in the phase it started in, as before.
      .Op("aten::pin_memory", 15, 20, 2)
      .Op("aten::copy_", 15.5, 19.5, 2);
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  std::map<std::pair<Phase, std::string>, OpCost> ops;
  for (const OpCost& op : attribution.StepOps()) ops[{op.phase, op.name}] = op;
  const OpCost& range = ops.at({Phase::kOptimizer, "Optimizer.step#AdamW.step"});
  EXPECT_NEAR(range.cost.host_ms, 4.0, 1e-9);
  EXPECT_NEAR(range.self_host_ms, 2.0, 1e-9);
  const PhaseCosts step = attribution.Step();
  EXPECT_NEAR(step.data.host_ms, 0.0, 1e-9) << "the range is no op of the data phase";
  EXPECT_NEAR(step.forward.host_ms, 4.0, 1e-9);
  EXPECT_NEAR(step.optimizer.host_ms, 2.0, 1e-9);
  EXPECT_NEAR(step.backward.host_ms, 4.0 + 5.0, 1e-9) << "the backward's node and pin_memory";
  EXPECT_NEAR(ops.at({Phase::kBackward, "aten::pin_memory"}).cost.host_ms, 5.0, 1e-9);
  EXPECT_NEAR(ops.at({Phase::kBackward, "aten::copy_"}).cost.host_ms, 4.0, 1e-9);
}

// One slow step does not choose a module's hottest op: the forward gather costs 2 ms in four steps
// and 20 in the fifth (mean 5.6), its backward 5 ms in every step.
TEST(WindowAttribution, TopOpsRankByTheMedianStepNotTheMean) {
  TimelineBuilder b;
  for (int step = 0; step < 5; ++step) {
    const double t = step * 100.0, gather_ms = step == 4 ? 20.0 : 2.0;
    b.Step(t, t + 30, t + 50, t + 60)
        .Forward("a", t + 1, t + 25)
        .Op("aten::gather", t + 2, t + 2 + gather_ms)
        .Backward("a", t + 31, t + 45)
        .Op("GatherBackward0", t + 32, t + 37, 1, OpScope::kBackward);
  }
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  const std::vector<OpCost> ops = attribution.TopOps("a");
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].name, "GatherBackward0");
  EXPECT_NEAR(ops[0].cost.host_ms, 5.0, 1e-9);
  EXPECT_NEAR(ops[1].cost.host_ms, 2.0, 1e-9) << "the median step's, not the mean's 5.6";
  EXPECT_NEAR(ops[1].self_host_ms, 2.0, 1e-9);
  ASSERT_EQ(ops[1].by_step.size(), 5u);
  EXPECT_NEAR(ops[1].by_step[4].host_ms, 20.0, 1e-9) << "each step is kept";
  std::map<std::string, OpCost> inventory;
  for (const OpCost& op : attribution.StepOps()) inventory[op.name] = op;
  EXPECT_NEAR(inventory.at("aten::gather").cost.host_ms, 5.6, 1e-9) << "the inventory's mean";
}

// ragged_shapes on the CPU: ReluBackward0 writes a buffer the allocator handed back to the kernel
// and pays for its pages; MmBackward0 does the work.
TEST(WindowAttribution, TopOpsRankByTimeLessPageFaultsWhileModulesKeepThem) {
  TimelineBuilder b;
  for (int step = 0; step < 5; ++step) {
    const double t = step * 100.0;
    b.Step(t, t + 30, t + 60, t + 70)
        .Forward("a", t + 1, t + 25)
        .Op("aten::relu", t + 2, t + 2.5)
        .Backward("a", t + 31, t + 55)
        .Op("ReluBackward0", t + 32, t + 36, 1, OpScope::kBackward)
        .Faults(2500, 1200)  // 3 ms of its 4
        .Op("MmBackward0", t + 40, t + 42, 1, OpScope::kBackward)
        .Op("AddBackward0", t + 45, t + 45.5, 1, OpScope::kBackward)
        .Faults(5000, 1200);  // priced above its 0.5 ms: all of it, no more
  }
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  const std::vector<OpCost> ops = attribution.TopOps("a");
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].name, "MmBackward0");
  EXPECT_NEAR(ops[0].work, 2.0, 1e-9);
  EXPECT_EQ(ops[1].name, "ReluBackward0");
  EXPECT_NEAR(ops[1].cost.host_ms, 4.0, 1e-9) << "its time as measured";
  EXPECT_NEAR(ops[1].cost.page_fault_ms, 3.0, 1e-9);
  EXPECT_NEAR(ops[1].work, 1.0, 1e-9);
  EXPECT_NEAR(attribution.Work(ops[1].by_step[0]), 1.0, 1e-9) << "step by step too";
  EXPECT_EQ(ops[3].name, "AddBackward0");
  EXPECT_NEAR(ops[3].cost.page_fault_ms, 0.5, 1e-9);
  EXPECT_NEAR(ops[3].work, 0.0, 1e-9);

  const PhaseCosts module = attribution.Inclusive("a");
  EXPECT_NEAR(module.backward.host_ms, 6.5, 1e-9) << "the module's time keeps its faults";
  EXPECT_NEAR(module.backward.page_fault_ms, 3.5, 1e-9);
  std::map<std::string, OpCost> inventory;
  for (const OpCost& op : attribution.StepOps()) inventory[op.name] = op;
  EXPECT_NEAR(inventory.at("ReluBackward0").cost.page_fault_ms, 3.0, 1e-9);
}

TEST(WindowAttribution, FaultsCountNothingWithoutTheirMeasuredCost) {
  TimelineBuilder b;
  b.Step(0, 30, 60, 70)
      .Forward("a", 1, 25)
      .Op("aten::relu", 2, 6)
      .Faults(2500, 0);  // counted, but no cost per fault was measured
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  const std::vector<OpCost> ops = attribution.TopOps("a");
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].cost.page_fault_ms, 0.0);
  EXPECT_NEAR(ops[0].work, 4.0, 1e-9);
}

TEST(WindowAttribution, SelfTimeLeavesOutTheOpsCalledInside) {
  TimelineBuilder b;
  for (double t : {0.0, 100.0}) {
    b.Step(t, t + 10, t + 30, t + 40)
        .Op("aten::linear", t + 2, t + 6)
        .Op("aten::addmm", t + 2.5, t + 5.5)
        .Op("aten::mm", t + 3, t + 4)
        .Op("aten::addmm", t + 7, t + 8)
        .Op("aten::relu", t + 8.5, t + 9, 2);  // another thread: nested in nothing
  }
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  std::map<std::string, OpCost> ops;
  for (const OpCost& op : attribution.StepOps()) ops[op.name] = op;
  EXPECT_NEAR(ops.at("aten::linear").self_host_ms, 1.0, 1e-9) << "4 ms less the addmm's 3 ms";
  EXPECT_NEAR(ops.at("aten::addmm").self_host_ms, 3.0, 1e-9)
      << "(3 - 1) + 1 for the top-level call";
  EXPECT_NEAR(ops.at("aten::mm").self_host_ms, 1.0, 1e-9);
  EXPECT_NEAR(ops.at("aten::relu").self_host_ms, 0.5, 1e-9);
  double self_total = 0;
  for (const auto& [name, op] : ops) self_total += op.self_host_ms;
  EXPECT_NEAR(self_total, 4.0 + 1.0 + 0.5, 1e-9) << "self times add up to the top-level ops' time";
}

// Self times are held only for the ops that enclose others, found by counting them 64 ops at a
// time: a hundred nested pairs put enclosing ops in four such words, each pair's times its own.
TEST(WindowAttribution, SelfTimesOfEnclosingOpsAcrossManyOpsAreEachTheirOwn) {
  TimelineBuilder b;
  b.Step(0, 1000, 1001, 1002);
  double linear_self = 0, addmm_self = 0;
  for (int k = 0; k < 100; ++k) {
    const double t = 5.0 * k, inner = (k + 1) / 64.0;  // each pair's child its own length
    b.Op("aten::linear", t, t + 3).Op("aten::addmm", t + 1, t + 1 + inner);
    linear_self += 3 - inner;
    addmm_self += inner;
  }
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  std::map<std::string, OpCost> ops;
  for (const OpCost& op : attribution.StepOps()) ops[op.name] = op;
  EXPECT_NEAR(ops.at("aten::linear").self_host_ms, linear_self, 1e-9);
  EXPECT_NEAR(ops.at("aten::addmm").self_host_ms, addmm_self, 1e-9);
  EXPECT_NEAR(ops.at("aten::linear").cost.host_ms, 300.0, 1e-9);
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

// A script's validation loop between two steps: the model's modules run again without
// gradients, in a stretch of no phase (the probe's OUTSIDE); none of it is the step's forward.
TEST(WindowAttribution, OpsOutsideTheStepsPhasesCountForNoPhase) {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kData, 10}, {Phase::kOutside, 60}, {Phase::kData, 62},
                  {Phase::kForward, 70}, {Phase::kBackward, 90}, {Phase::kOptimizer, 95}})
      .Forward("a", 20, 50)
      .Op("aten::linear", 21, 49)
      .Forward("a", 63, 69)
      .Op("aten::linear", 64, 68);
  const Timeline timeline = b.Build();
  const WindowAttribution attribution(timeline, PlaceOps(timeline), {});
  EXPECT_NEAR(attribution.Inclusive("a").forward.host_ms, 4.0, 1e-9) << "the training call";
  EXPECT_NEAR(attribution.Step().optimizer.host_ms, 0.0, 1e-9);
  EXPECT_NEAR(attribution.Step().data.host_ms, 0.0, 1e-9);
  const std::vector<OpCost> ops = attribution.TopOps("");
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_NEAR(ops.front().cost.host_ms, 4.0, 1e-9);
  ASSERT_EQ(attribution.StepOps().size(), 1u);
}

}  // namespace
}  // namespace advisor
