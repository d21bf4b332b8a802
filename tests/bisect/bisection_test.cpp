// The bisection loop against a synthetic source: which windows it asks for, where it descends and
// what it names, with no LibTorch and no model.
#include "engine/bisect/bisection.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/util/printf.h"
#include "tests/bisect/fake_source.h"

namespace advisor {
namespace {

using testing::FakeModule;
using testing::FakeSource;
using testing::Leaf;

// root -> stem, blocks (a ModuleList of four identical Blocks), head; each Block -> attn, mlp;
// blocks.2.mlp's backward is slow: a gather whose backward sorts.
FakeModule Transformer() {
  FakeModule root;
  root.type = "Model";
  root.children.push_back(Leaf("stem", 0.5, 1.0));
  FakeModule blocks;
  blocks.path = "blocks";
  blocks.type = "ModuleList";
  blocks.has_forward = false;
  for (int i = 0; i < 4; ++i) {
    const std::string path = "blocks." + std::to_string(i);
    FakeModule block;
    block.path = path;
    block.type = "Block";
    block.children.push_back(Leaf(path + ".attn", 2.0, 4.0));
    FakeModule mlp = Leaf(path + ".mlp", 2.0, 4.0);
    if (i == 2) {
      mlp.forward_op = "aten::gather";
      mlp.backward_op = "GatherBackward0";
      mlp.backward_ms = 40.0;
    }
    block.children.push_back(mlp);
    blocks.children.push_back(block);
  }
  root.children.push_back(blocks);
  root.children.push_back(Leaf("head", 1.0, 2.0));
  return root;
}

BisectOutcome Bisect(FakeSource& source) {
  return RunBisection(source, BisectSettings{3, 16, {}}, [](const std::string&) {});
}

// Five-step windows, one level: the hot spot's op is chosen among the children of the root's.
RunReport BisectOneLevel(FakeSource& source) {
  return RunBisection(source, BisectSettings{5, 1, {}}, [](const std::string&) {}).report;
}

TEST(Bisection, NamesTheSlowInstanceAmongIdenticalSiblingsWithOneWindowPerLevel) {
  FakeSource source(Transformer());
  const BisectOutcome outcome = Bisect(source);
  const RunReport& report = outcome.report;

  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2.mlp");
  EXPECT_EQ(report.hotspot->phase, "backward");
  EXPECT_EQ(report.hotspot->op, "GatherBackward0");
  EXPECT_EQ(report.hotspot->forward_op, "aten::gather");
  ASSERT_TRUE(report.hotspot->source.has_value());
  EXPECT_EQ(report.hotspot->source->line, 42);
  ASSERT_EQ(source.source_queries().size(), 1u);
  EXPECT_EQ(source.source_queries()[0].first, "blocks.2.mlp");
  EXPECT_EQ(source.source_queries()[0].second, "aten::gather") << "the forward op is looked up";

  // Timing steps, the baseline window, then the root's children (the group "blocks" is decided
  // from that window) and blocks.2's: depth 2 in three windows.
  const std::vector<WindowRequest>& requests = source.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[1].instrumentation, Instrumentation::kNone);
  EXPECT_EQ(requests[2].instrumentation, Instrumentation::kChildrenOf);
  EXPECT_EQ(requests[2].parent, "");
  EXPECT_EQ(requests[3].parent, "blocks.2");
  EXPECT_EQ(report.run.windows, 3);
  for (const WindowRequest& request : requests) EXPECT_EQ(request.steps, 3);
  EXPECT_EQ(report.hotspot->confidence, "high") << "every step of every window agreed";
  EXPECT_TRUE(report.hotspot->candidates.empty());
  // Its share is of a whole step (the windows' steps are alike here, the profiled window's too).
  const StepBreakdown& step = report.step;
  EXPECT_NEAR(step.profiled_ms,
              step.forward_ms + step.backward_ms + step.optimizer_ms + step.evaluation_ms +
                  step.rest_ms,
              1e-6);
  EXPECT_NEAR(report.hotspot->share * step.profiled_ms, report.hotspot->ms, 1e-6);
  // The module's forward and backward hold its op and the rest of its ops.
  EXPECT_GT(report.hotspot->module_ms, report.hotspot->ms);
  EXPECT_NEAR(report.hotspot->module_share * step.profiled_ms, report.hotspot->module_ms, 1e-6);
  for (const BisectLevel& level : report.levels) {
    EXPECT_EQ(level.steps_backing, 3) << level.parent;
    EXPECT_FALSE(level.measured_again) << level.parent;
  }

  // Every window goes to the trace, named after what it instrumented.
  ASSERT_EQ(outcome.windows.size(), 3u);
  EXPECT_EQ(outcome.windows[0].label, "no module instrumented");
  EXPECT_EQ(outcome.windows[1].label, "the children of the root");
  EXPECT_EQ(outcome.windows[2].label, "the children of blocks.2");
  for (const LabelledWindow& window : outcome.windows) {
    EXPECT_EQ(window.timeline.steps.size(), 3u);
    EXPECT_EQ(window.placements.size(), window.timeline.ops.size());
  }
}

// Windows are counted from 0: the timing steps (0), the baseline (1), the root's children (2).
constexpr int kLevelOneWindow = 2;

// In `window`, step `step` of it, every op of `module` takes 300x as long: another process had the
// CPU while it ran, so long that the module holds most of that step. A block slowed so in one
// step is no anomaly (those are judged on every step of the window), but the step's time is
// then the block's; the leaf stem or head outweighs blocks.2 altogether in it.
std::function<double(int, int, const std::string&)> SlowedAt(
    std::vector<std::tuple<int, int, std::string>> slow) {
  return [slow = std::move(slow)](int window, int step, const std::string& path) {
    for (const auto& [w, s, module] : slow) {
      if (w == window && s == step && IsSameOrDescendant(path, module)) return 300.0;
    }
    return 1.0;
  };
}

bool SaysWithPrefix(const RunReport& report, const std::string& text) {
  for (const std::string& line : report.data_quality) {
    if (line.rfind(text, 0) == 0) return true;
  }
  return false;
}

// The hot spot was found with low confidence, and the doubt about its op begins with `doubt`.
void ExpectUnsureOfTheOp(const RunReport& report, const std::string& doubt) {
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->confidence, "low");
  EXPECT_TRUE(SaysWithPrefix(report, "low confidence: the op: " + doubt))
      << ::testing::PrintToString(report.data_quality);
}


// A machine that got busier after the baseline: every op of the levels' windows runs four times
// as long. The hot spot's share is of a step of the window its op was timed in; against the
// baseline's step it read "410 % of the step" on a loaded VM.
TEST(Bisection, TheHotSpotsShareIsOfItsOwnWindowsStep) {
  FakeSource quiet(Transformer());
  const RunReport quiet_report = Bisect(quiet).report;
  FakeSource busy(Transformer());
  busy.slowdown = [](int window, int, const std::string&) { return window >= 2 ? 4.0 : 1.0; };
  const RunReport report = Bisect(busy).report;
  ASSERT_TRUE(quiet_report.hotspot.has_value());
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_GT(report.hotspot->ms, report.step.profiled_ms) << "timed in a slower window";
  EXPECT_NEAR(report.hotspot->share, quiet_report.hotspot->share, 0.02)
      << "the same share of a step as on the quiet machine (" << quiet_report.hotspot->share
      << ")";
}
// Level windows whose steps took many times the baseline's profiled ones measured a cost the job's
// steps do not pay (on a busy 2-core VM, a BLAS pool's sleeping thread woken for every matmul:
// 290 ms against 35 ms). Every step still agrees, so only the comparison can say so.
TEST(Bisection, LevelWindowsFarSlowerThanTheBaselinesStepsMakeTheHotSpotLowConfidence) {
  FakeSource slowed(Transformer());
  slowed.slowdown = [](int window, int, const std::string&) { return window >= 2 ? 6.0 : 1.0; };
  const RunReport report = Bisect(slowed).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2.mlp");
  EXPECT_EQ(report.hotspot->confidence, "low");
  ASSERT_EQ(report.doubts.size(), 1u) << "said once, not at every level";
  EXPECT_EQ(report.doubts[0].rfind("level 1's window ran 5.9x the baseline's profiled step", 0),
            0u)
      << report.doubts[0];

  // Four times as slow is within what markers and a busier machine may cost: no doubt.
  FakeSource busier(Transformer());
  busier.slowdown = [](int window, int, const std::string&) { return window >= 2 ? 4.0 : 1.0; };
  const RunReport busier_report = Bisect(busier).report;
  ASSERT_TRUE(busier_report.hotspot.has_value());
  EXPECT_EQ(busier_report.hotspot->confidence, "high")
      << ::testing::PrintToString(busier_report.doubts);
}

TEST(Bisection, ALevelWhoseStepsDisagreeIsMeasuredAgainAndAnAgreeingWindowKeepsConfidence) {
  FakeSource source(Transformer());
  // Two of the level's three steps were each slowed in another module: the medians still point
  // at blocks.2, but only one step does.
  source.slowdown = SlowedAt({{kLevelOneWindow, 0, "head"}, {kLevelOneWindow, 1, "stem"}});
  const BisectOutcome outcome = Bisect(source);
  const RunReport& report = outcome.report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2.mlp");
  EXPECT_EQ(report.hotspot->confidence, "high") << "the second window agreed in every step";
  ASSERT_EQ(outcome.windows.size(), 4u);
  EXPECT_EQ(outcome.windows[1].label, "the children of the root");
  EXPECT_EQ(outcome.windows[2].label, "the children of the root (measured again)");
  ASSERT_EQ(source.requests().size(), 5u) << "timing, baseline, level 1 twice, blocks.2";
  EXPECT_EQ(source.requests()[3].parent, "");
  EXPECT_EQ(report.run.windows, 4);
  ASSERT_FALSE(report.levels.empty());
  EXPECT_TRUE(report.levels[0].measured_again);
  EXPECT_EQ(report.levels[0].steps_backing, 3) << "the level is reported from the second window";
}

TEST(Bisection, WindowsThatDisagreeGiveLowConfidenceAndNameWhatTheyCouldNotSeparate) {
  FakeSource source(Transformer());
  // The first window is unclear (blocks.2 in one step of three); in the whole second one
  // another process slows blocks.1.
  source.slowdown = SlowedAt({{kLevelOneWindow, 0, "head"},
                                 {kLevelOneWindow, 1, "stem"},
                                 {kLevelOneWindow + 1, 0, "blocks.1"},
                                 {kLevelOneWindow + 1, 1, "blocks.1"},
                                 {kLevelOneWindow + 1, 2, "blocks.1"}});
  const RunReport report = Bisect(source).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.1") << "the clearer window decides";
  EXPECT_EQ(report.hotspot->confidence, "low");
  EXPECT_EQ(report.hotspot->candidates, std::vector<std::string>{"blocks.2"});
  // The reasons travel with the report: the choice changed, and the window that made it, its
  // every step slowed 300x in blocks.1, ran far slower than the baseline.
  ASSERT_EQ(report.doubts.size(), 2u) << ::testing::PrintToString(report.doubts);
  EXPECT_EQ(report.doubts[0].rfind("level 1: the choice changed on re-run", 0), 0u);
  EXPECT_EQ(report.doubts[1].rfind("level 1's window ran ", 0), 0u);
  EXPECT_TRUE(SaysWithPrefix(report,
                             "low confidence: level 1: the choice changed on re-run: blocks.2 in "
                             "1 of 3 steps of one window, blocks.1 in 3 of 3 steps of the next"))
      << ::testing::PrintToString(report.data_quality);
}

// The progress lines say what the bisection follows: a module the medians lead to but no step
// chose is not said to have "held the time in 0 of 3 steps", and where the re-run chooses
// another module, the line says which one the bisection descends into.
TEST(Bisection, ProgressSaysWhichModuleItFollowsWhenTheChoiceChanges) {
  FakeSource source(Transformer());
  // First window: each step slowed in another module, none in blocks.2, where the medians lead.
  // Second window: blocks.1 in every step.
  source.slowdown = SlowedAt({{kLevelOneWindow, 0, "head"},
                                 {kLevelOneWindow, 1, "stem"},
                                 {kLevelOneWindow, 2, "blocks.3"},
                                 {kLevelOneWindow + 1, 0, "blocks.1"},
                                 {kLevelOneWindow + 1, 1, "blocks.1"},
                                 {kLevelOneWindow + 1, 2, "blocks.1"}});
  std::vector<std::string> lines;
  const BisectOutcome outcome = RunBisection(
      source, BisectSettings{3, 16, {}}, [&](const std::string& line) { lines.push_back(line); });
  ASSERT_TRUE(outcome.report.hotspot.has_value());
  EXPECT_EQ(outcome.report.hotspot->path, "blocks.1");
  std::string said;
  for (const std::string& line : lines) said += line + "\n";
  EXPECT_EQ(said.find("held the time in 0 of"), std::string::npos) << said;
  EXPECT_NE(said.find("level 1: the medians lead to blocks.2, which held the time in none of the "
                      "3 steps; measuring the level again"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("level 1: the choice changed on re-run: blocks.2 in 0 of 3 steps of one "
                      "window, blocks.1 in 3 of 3 steps of the next; following blocks.1"),
            std::string::npos)
      << said;
}

TEST(Bisection, AWindowDuringWhichOtherWorkHeldTheCpusMakesTheHotSpotLowConfidence) {
  FakeSource source(Transformer());
  // The stall clock stands still over the baseline's window (readings 1 and 2), then leaps by
  // far more than a fake window lasts: every level window ran on a machine kept busy.
  double stall = 0;
  int readings = 0;
  BisectSettings settings{3, 16, [&]() -> std::optional<double> {
                            stall += ++readings > 2 ? 1000.0 : 0.0;
                            return stall;
                          }};
  const RunReport report = RunBisection(source, settings, [](const std::string&) {}).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2.mlp");
  EXPECT_EQ(report.hotspot->confidence, "low");
  EXPECT_TRUE(SaysWithPrefix(report, "low confidence: other work kept the CPUs busy: during "
                                     "profiling window 2 some task waited for a CPU 100%"))
      << ::testing::PrintToString(report.data_quality);

  int quiet_readings = 0;
  BisectSettings quiet{3, 16, [&]() -> std::optional<double> { return ++quiet_readings * 1e-9; }};
  FakeSource again(Transformer());
  EXPECT_EQ(RunBisection(again, quiet, [](const std::string&) {}).report.hotspot->confidence,
            "high");
}

TEST(Bisection, AStallTheWorkloadsOwnThreadsMakeLeavesTheHotSpotSure) {
  // Every window stalls, but no other process ran: the workload's own workers took the cores.
  double stall = 0;
  BisectSettings own{3, 16, [&]() -> std::optional<double> { return stall += 1000.0; },
                     []() -> std::optional<double> { return 5.0; }};
  FakeSource source(Transformer());
  const RunReport report = RunBisection(source, own, [](const std::string&) {}).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->confidence, "high") << ::testing::PrintToString(report.data_quality);

  // The same stalls while other processes used far more than a core: other work's.
  double others = 0;
  BisectSettings loaded{3, 16, [&]() -> std::optional<double> { return stall += 1000.0; },
                        [&]() -> std::optional<double> { return others += 1000.0; }};
  FakeSource again(Transformer());
  const RunReport busy = RunBisection(again, loaded, [](const std::string&) {}).report;
  EXPECT_EQ(busy.hotspot->confidence, "low");
  EXPECT_TRUE(SaysWithPrefix(busy, "low confidence: other work kept the CPUs busy: during "
                                   "profiling window 1 some task waited for a CPU 100% of the "
                                   "time (/proc/pressure/cpu) while other processes used"))
      << ::testing::PrintToString(busy.data_quality);
}

TEST(Bisection, OtherProcessesCpuIsJudgedOverLongEnoughToResolveProcsTicks) {
  // The first window stalls; other processes used one 10 ms tick (of /proc's counting) in all.
  // Over a fake window's microseconds that reads as hundreds of cores; over the 50 ms the
  // bisection waits for before judging, as 0.2.
  double stall = 0;
  BisectSettings settings{3, 16, [&]() -> std::optional<double> { return stall += 1000.0; }};
  int others_readings = 0;
  settings.others_cpu_seconds = [&]() -> std::optional<double> {
    return ++others_readings > 1 ? 0.01 : 0.0;
  };
  settings.others_min_seconds = 0.05;
  FakeSource source(Transformer());
  const RunReport report = RunBisection(source, settings, [](const std::string&) {}).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->confidence, "high") << ::testing::PrintToString(report.data_quality);

  others_readings = 0;
  settings.others_min_seconds = 0;  // judged over the window alone
  FakeSource again(Transformer());
  EXPECT_EQ(RunBisection(again, settings, [](const std::string&) {}).report.hotspot->confidence,
            "low");
}

TEST(Bisection, ProfiledStepsFasterThanUnprofiledOnesAreAWarningAboutTheStepTime) {
  FakeSource source(Transformer());
  source.slowdown = [](int window, int, const std::string&) {
    return window == 0 ? 2.0 : 1.0;  // another process shared the CPU while the steps were timed
  };
  const RunReport report = Bisect(source).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2.mlp");
  EXPECT_EQ(report.hotspot->confidence, "high") << "every level's steps agreed";
  EXPECT_TRUE(SaysWithPrefix(report, "profiled steps ran 50% faster than unprofiled ones: the "
                                     "machine's load changed during the run, or the warm-up"))
      << ::testing::PrintToString(report.data_quality);
}

TEST(Bisection, ReportsTheStepFromTheTimingStepsAndThePhasesFromTheBaseline) {
  FakeSource source(Transformer());
  const RunReport report = Bisect(source).report;
  // Forward: root 0.1 + stem 0.5 + 4 blocks x (0.1 + 2 + 2) + head 1 = 18 ms; backward: root 0.2 +
  // stem 1 + 4 blocks x 0.2 + three blocks' 8 + the slow one's 44 + head 2 = 72 ms; optimizer 1 ms.
  EXPECT_NEAR(report.step.median_ms, 91.0, 1e-6);
  EXPECT_NEAR(report.step.forward_ms, 18.0, 1e-6);
  EXPECT_NEAR(report.step.backward_ms, 72.0, 1e-6);
  EXPECT_NEAR(report.step.optimizer_ms, 1.0, 1e-6);
  EXPECT_FALSE(report.ops.empty());
  EXPECT_EQ(report.ops.front().name, "GatherBackward0");
  // The timing steps' own phases, which add up to their mean step (this source times its steps
  // as it records them: the same phases).
  ASSERT_TRUE(report.step.timed_phases);
  const StepPhaseTimes& timed = *report.step.timed_phases;
  EXPECT_NEAR(timed.forward_ms, 18.0, 1e-6);
  EXPECT_NEAR(timed.backward_ms, 72.0, 1e-6);
  EXPECT_NEAR(timed.forward_ms + timed.backward_ms + timed.optimizer_ms + timed.evaluation_ms +
                  timed.rest_ms + timed.data_ms.value_or(0) + timed.loss_ms.value_or(0),
              report.step.mean_ms, 1e-6);
}

// The door's settings, the baseline's data phase and the input stage as the baseline window
// measured it; the levels' windows do not replace it.
TEST(Bisection, TheInputStageProfileIsTheBaselineWindows) {
  FakeSource source(Transformer());
  InputStageProfile profile;
  profile.batch_ms = 7.5;
  profile.pieces = {
      {"random_dilation", "transform", {}, 6.0, 0.8, {8, 1, 64, 64}, {}, "float32", true}};
  source.HaveInputStage(DataWait{0, 4, false, std::nullopt}, profile);
  const RunReport report = Bisect(source).report;
  ASSERT_TRUE(report.data.has_value());
  EXPECT_EQ(report.data->workers, 4);
  ASSERT_TRUE(report.data->stage.has_value());
  EXPECT_EQ(report.data->stage->batches, 1) << "window 0 timed the steps, window 1 is the baseline";
  EXPECT_DOUBLE_EQ(report.data->stage->batch_ms, 7.5);
  ASSERT_EQ(report.data->stage->pieces.size(), 1u);
  EXPECT_EQ(report.data->stage->pieces[0].name, "random_dilation");

  FakeSource without_stage(Transformer());
  EXPECT_FALSE(Bisect(without_stage).report.data.has_value());
}

TEST(Bisection, StopsAtAModuleItMustNotLookInsideAndSaysWhy) {
  FakeModule root = Transformer();
  for (FakeModule& block : root.children[1].children) {
    block.opaque_reason = "compiled with torch.compile: measured as one leaf";
  }
  FakeSource source(root);
  const RunReport report = Bisect(source).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2");
  EXPECT_EQ(report.hotspot->op, "GatherBackward0") << "the leaf's hottest op is still named";
  EXPECT_EQ(source.requests().size(), 3u) << "no window inside the compiled block";
  bool said = false;
  for (const std::string& line : report.data_quality) {
    said |= line == "blocks.2: compiled with torch.compile: measured as one leaf";
  }
  EXPECT_TRUE(said);
}

TEST(Bisection, AWholeModelThatIsOneLeafIsItsOwnHotSpot) {
  FakeModule root = Transformer();
  root.opaque_reason = "compiled with torch.compile: measured as one leaf";
  FakeSource source(root);
  const RunReport report = Bisect(source).report;
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "");
  EXPECT_EQ(report.hotspot->op, "GatherBackward0");
  EXPECT_TRUE(report.levels.empty());
  for (const WindowRequest& request : source.requests()) {
    EXPECT_EQ(request.instrumentation, Instrumentation::kNone) << "nothing inside is touched";
  }
}

// root -> hot (x: aten::cos, y: aten::matmul, both forward), cold. The bisection stops at depth
// 1, so hot's op is chosen among its children's.
FakeModule TwoOpsInOneModule(double cos_ms, double matmul_ms) {
  FakeModule hot;
  hot.path = "hot";
  hot.type = "Block";
  FakeModule x = Leaf("hot.x", cos_ms, 0.1);
  x.forward_op = "aten::cos";
  FakeModule y = Leaf("hot.y", matmul_ms, 0.1);
  y.forward_op = "aten::matmul";
  hot.children = {x, y};
  FakeModule root;
  root.type = "Model";
  root.children = {hot, Leaf("cold", 1.0, 2.0)};
  return root;
}

// root -> hot (gather: aten::gather forward, GatherBackward0 backward; small), cold.
FakeModule GatherInOneModule(double forward_ms, double backward_ms) {
  FakeModule hot;
  hot.path = "hot";
  hot.type = "Block";
  FakeModule gather = Leaf("hot.gather", forward_ms, backward_ms);
  gather.forward_op = "aten::gather";
  gather.backward_op = "GatherBackward0";
  hot.children = {gather, Leaf("hot.small", 0.5, 0.5)};
  FakeModule root;
  root.type = "Model";
  root.children = {hot, Leaf("cold", 1.0, 2.0)};
  return root;
}

// A gather whose forward and backward cost about the same (the demo's aten::gather and
// GatherBackward0 on a CPU): the two halves of one call take turns leading, and that is no doubt
// about the hot spot's op, whose line and fix they share. It was: every demo run read "low
// confidence: the op: GatherBackward0 (backward) cost more than aten::gather (forward) in only...";
// then the demo named aten::gather in 4 quiet runs of 10 and GatherBackward0 in 6. The call is
// named by its backward node, with its forward op beside it, whichever half leads.
TEST(Bisection, TheTwoHalvesOfOneCallTakingTurnsAreNamedByTheBackwardNodeAndSure) {
  // The backward half: 9.0 ms in three steps of five (the forward's 10 leads on the medians),
  // 11.4 in two.
  FakeSource source(GatherInOneModule(10.0, 9.5));
  source.backward_slowdown = [](int, int step, const std::string& path) {
    return path == "hot.gather" ? (step % 2 == 1 ? 1.2 : 0.95) : 1.0;
  };
  const RunReport report = BisectOneLevel(source);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "hot");
  EXPECT_EQ(report.hotspot->op, "GatherBackward0") << "the forward half leads on average";
  EXPECT_EQ(report.hotspot->phase, "backward");
  EXPECT_EQ(report.hotspot->forward_op, "aten::gather");
  EXPECT_FALSE(SaysWithPrefix(report, "low confidence: the op:"))
      << ::testing::PrintToString(report.data_quality);
  EXPECT_EQ(report.run.windows, 2) << "the baseline and level 1: nothing measured again";
}

TEST(Bisection, ACallIsNamedByItsForwardOpOnlyWhereTheForwardCostsTwiceTheBackward) {
  FakeSource alike(GatherInOneModule(15.0, 10.0));  // the demo's slowest forward seen
  const RunReport named_by_node = BisectOneLevel(alike);
  ASSERT_TRUE(named_by_node.hotspot.has_value());
  EXPECT_EQ(named_by_node.hotspot->op, "GatherBackward0");
  EXPECT_EQ(named_by_node.hotspot->forward_op, "aten::gather");
  EXPECT_EQ(named_by_node.hotspot->confidence, "high");

  FakeSource forward_heavy(GatherInOneModule(10.0, 3.0));
  const RunReport report = BisectOneLevel(forward_heavy);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->op, "aten::gather");
  EXPECT_EQ(report.hotspot->phase, "forward");
  EXPECT_EQ(report.hotspot->confidence, "high");
}

TEST(Bisection, TwoOpsThatTakeTurnsLeadingMakeTheHotSpotsOpLowConfidence) {
  // aten::cos leads on average (10.4 against 9.5 ms a step) but only in 3 of 5 steps.
  FakeSource source(TwoOpsInOneModule(10.0, 9.5));
  source.slowdown = [](int, int step, const std::string& path) {
    return path == "hot.x" ? (step % 2 == 0 ? 1.2 : 0.8) : 1.0;
  };
  const RunReport report = BisectOneLevel(source);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "hot");
  EXPECT_EQ(report.hotspot->op, "aten::cos");
  EXPECT_EQ(report.hotspot->confidence, "low");
  EXPECT_TRUE(SaysWithPrefix(report, "low confidence: the op: aten::cos (forward) cost more than "
                                     "aten::matmul (forward) in only 6 of 10 steps of two windows"))
      << ::testing::PrintToString(report.data_quality);
  EXPECT_EQ(report.run.windows, 3) << "the baseline, level 1, and level 1 again for the op";

  FakeSource clear(TwoOpsInOneModule(10.0, 5.0));
  clear.slowdown = source.slowdown;
  const RunReport sure = BisectOneLevel(clear);
  ASSERT_TRUE(sure.hotspot.has_value());
  EXPECT_EQ(sure.hotspot->op, "aten::cos");
  EXPECT_EQ(sure.hotspot->confidence, "high") << "it leads in every step";
}

TEST(Bisection, AnOpLeadThatSomeStepsOfOneWindowDoNotBackIsMeasuredAgain) {
  // In the level's window (the third: timing steps, baseline, level 1) aten::cos, 10 ms against
  // aten::matmul's 9.5, loses two steps to an 8 ms dip; measured again, it leads in every step.
  FakeSource source(TwoOpsInOneModule(10.0, 9.5));
  source.slowdown = [](int window, int step, const std::string& path) {
    return window == 2 && path == "hot.x" && step % 2 == 1 ? 0.8 : 1.0;
  };
  const RunReport report = BisectOneLevel(source);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->op, "aten::cos");
  EXPECT_EQ(report.hotspot->confidence, "high") << ::testing::PrintToString(report.data_quality);
  ASSERT_EQ(source.requests().size(), 4u);
  EXPECT_EQ(source.requests()[3].instrumentation, Instrumentation::kChildrenOf);
  EXPECT_EQ(source.requests()[3].parent, source.requests()[2].parent) << "the same window again";
}

TEST(Bisection, AnOpThatPaysForFreshPagesIsNotTheHotSpotsOp) {
  // aten::cos writes a buffer the allocator handed back: 9 ms of page faults on its 3 ms, in
  // three steps of five; aten::matmul works 6 ms in every step.
  FakeSource source(TwoOpsInOneModule(3.0, 6.0));
  source.page_fault_ms = [](int, int step, const std::string& path) {
    return path == "hot.x" && step % 2 == 0 ? 9.0 : 0.0;
  };
  const RunReport report = BisectOneLevel(source);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "hot");
  EXPECT_EQ(report.hotspot->op, "aten::matmul");
  EXPECT_EQ(report.hotspot->confidence, "high")
      << ::testing::PrintToString(report.data_quality);
  ASSERT_GE(report.hotspot->top_ops.size(), 2u);
  EXPECT_EQ(report.hotspot->top_ops[1].name, "aten::cos");
  EXPECT_NEAR(report.hotspot->top_ops[1].ms, 12.0, 1e-6) << "its median step's, as measured";
  EXPECT_NEAR(report.hotspot->top_ops[1].page_fault_ms, 9.0, 1e-6);
  ASSERT_TRUE(report.run.page_fault_us.has_value());
  EXPECT_DOUBLE_EQ(*report.run.page_fault_us, 1.0);
  ASSERT_TRUE(report.step.page_fault_ms.has_value());
  EXPECT_NEAR(*report.step.page_fault_ms, 5.4, 1e-6) << "the baseline's mean step: 9 ms in 3 of 5";
}

// aten::matmul works 6 ms every step; aten::cos 4 ms, but 8 ms from step `first` of each window
// on, with 0.5 ms of page faults counted (copy-on-write after a DataLoader forked its workers):
// its work, 7.5 ms, leads there.
FakeSource CosFaultedFrom(int first) {
  FakeSource source(TwoOpsInOneModule(4.0, 6.0));
  source.slowdown = [first](int, int step, const std::string& path) {
    return path == "hot.x" && step >= first ? 1.875 : 1.0;
  };
  source.page_fault_ms = [first](int, int step, const std::string& path) {
    return path == "hot.x" && step >= first ? 0.5 : 0.0;
  };
  return source;
}

TEST(Bisection, StepsInWhichAnOpFaultedBeyondItsUsualAreLeftOutOfTheOpLead) {
  // Faulted in the last two steps of each window: the three undisturbed steps decide.
  FakeSource source = CosFaultedFrom(3);
  const RunReport report = BisectOneLevel(source);
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->op, "aten::matmul");
  EXPECT_EQ(report.hotspot->confidence, "high") << ::testing::PrintToString(report.data_quality);
  EXPECT_EQ(report.run.windows, 2) << "decided in the level's window";

  // Where the faulted steps are most of the window, none is left out: cos, 7.5 ms of work in its
  // median step, leads in 3 of 5 steps of each window, and the doubt says so.
  FakeSource most = CosFaultedFrom(2);
  ExpectUnsureOfTheOp(BisectOneLevel(most),
                      "aten::cos (forward) cost more than aten::matmul (forward) in only 6 of 10 "
                      "steps of two windows (7.50 against 6.00 ms a step)");

  // Where the undisturbed steps do not back the op either, the doubt says how many were left out:
  // cos's median step (6.2 ms, step 1, without faults) leads, its undisturbed steps do not.
  FakeSource mixed = CosFaultedFrom(3);
  mixed.slowdown = [](int, int step, const std::string& path) {
    if (path != "hot.x") return 1.0;
    return step >= 3 ? 1.875 : step == 1 ? 1.55 : 1.0;
  };
  ExpectUnsureOfTheOp(BisectOneLevel(mixed),
                      "aten::cos (forward) cost more than aten::matmul (forward) in only 2 of 6 "
                      "steps of two windows (6.20 against 6.00 ms a step; 4 steps left out: page "
                      "faults beyond the ops' usual");
}

TEST(Bisection, ALeadWithinItsOpsPageFaultsPriceIsNoLead) {
  // aten::cos's 6.2 ms of work lead aten::matmul's 6.0 in every step, but cos took 7 ms of page
  // faults, priced, not timed: a fault that cost 3 % more than its price would make up the lead.
  FakeSource source(TwoOpsInOneModule(6.2, 6.0));
  source.page_fault_ms = [](int, int, const std::string& path) {
    return path == "hot.x" ? 7.0 : 0.0;
  };
  const RunReport report = BisectOneLevel(source);
  ExpectUnsureOfTheOp(report,
                      "aten::cos (forward) cost more than aten::matmul (forward) in only 0 of 10 "
                      "steps of two windows (6.20 against 6.00 ms a step; in 10 the ops differed "
                      "by less than a quarter of their page faults' priced time)");
  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->op, "aten::cos");

  // Without the faults the same lead is clear.
  FakeSource plain(TwoOpsInOneModule(6.2, 6.0));
  const RunReport sure = BisectOneLevel(plain);
  ASSERT_TRUE(sure.hotspot.has_value());
  EXPECT_EQ(sure.hotspot->confidence, "high") << ::testing::PrintToString(sure.data_quality);
}

TEST(Bisection, StepsThatWaitInBurstsCompareTheirMeansForTheProbeOverhead) {
  // One timing step of three takes ten times the others (the mean 4x the median), as when a
  // DataLoader's prefetched batches run out; the profiled window's steps are even.
  FakeSource source(Transformer());
  source.slowdown = [](int window, int step, const std::string&) {
    return window == 0 && step == 2 ? 10.0 : 1.0;
  };
  const RunReport report = Bisect(source).report;
  ASSERT_GT(report.step.mean_ms, 3 * report.step.median_ms);
  const std::string overhead = Printf(
      "probe overhead: profiled steps took %.1f ms (mean: the steps wait in bursts) against %.1f "
      "ms unprofiled",
      report.step.profiled_ms, report.step.mean_ms);
  EXPECT_TRUE(SaysWithPrefix(report, overhead)) << ::testing::PrintToString(report.data_quality);
  EXPECT_TRUE(SaysWithPrefix(report, "profiled steps ran 7"))
      << "3 against 12 units: " << ::testing::PrintToString(report.data_quality);
}

// root -> a leaf whose backward is 9x its forward, beside `hottest`: a module with two small
// Linears, whose own forward and backward take `own_ms` and twice that.
FakeModule AnomalyBesideAHotterModule(double own_ms) {
  FakeModule root;
  root.type = "Model";
  FakeModule anomalous = Leaf("encoder", 1.0, 9.0);
  anomalous.backward_op = "SelectBackward0";
  root.children.push_back(anomalous);
  FakeModule hottest;
  hottest.path = "decoder";
  hottest.type = "Decoder";
  hottest.forward_ms = own_ms;
  hottest.backward_ms = 2 * own_ms;
  hottest.forward_op = "aten::matmul";
  hottest.backward_op = "MmBackward0";
  for (int i = 0; i < 2; ++i) {
    hottest.children.push_back(Leaf("decoder.linear" + std::to_string(i), 4.0, 8.0));
  }
  root.children.push_back(hottest);
  return root;
}

// Bisects `source`, expecting the hot spot `path` -> `op` with high confidence.
BisectOutcome BisectExpecting(FakeSource& source, const std::string& path, const std::string& op) {
  BisectOutcome outcome = Bisect(source);
  const auto& hotspot = outcome.report.hotspot;
  EXPECT_TRUE(hotspot.has_value());
  if (hotspot) {
    EXPECT_EQ(hotspot->path, path);
    EXPECT_EQ(hotspot->op, op);
    EXPECT_EQ(hotspot->confidence, "high");
  }
  return outcome;
}

TEST(Bisection, AHotterModuleWhoseOwnOpsHoldMostIsLookedIntoAndItsWindowIsTheNextLevels) {
  // The encoder's excess (6 ms) against a decoder of 96 ms, 72 of them its own: the look into
  // the decoder finds its own ops holding most, and that window decides the decoder's level.
  FakeSource source(AnomalyBesideAHotterModule(24.0));
  const BisectOutcome outcome = BisectExpecting(source, "decoder", "MmBackward0");
  const RunReport& report = outcome.report;
  ASSERT_EQ(report.levels.size(), 2u);
  EXPECT_EQ(report.levels[0].chosen, "decoder");
  EXPECT_NE(report.levels[0].reason.find("encoder's anomaly (6 ms/step beyond its prediction) "
                                         "gives way to decoder: its own ops hold most"),
            std::string::npos)
      << report.levels[0].reason;
  EXPECT_EQ(report.levels[1].parent, "decoder");
  EXPECT_EQ(report.levels[1].steps_backing, 3);
  // The baseline, the root's children, the decoder's: no more windows than without the look.
  EXPECT_EQ(report.run.windows, 3);
  ASSERT_EQ(outcome.windows.size(), 3u);
  EXPECT_EQ(outcome.windows[2].label, "the children of decoder (looking ahead)");
}

TEST(Bisection, AnAnomalyBesideAHotterModuleOfEvenLegitimateWorkKeepsTheLevel) {
  // The decoder's own ops are a sliver now; its time is two even Linears with nothing anomalous:
  // the encoder's excess is the place to name, one window later.
  FakeSource source(AnomalyBesideAHotterModule(0.1));
  const RunReport report = BisectExpecting(source, "encoder", "SelectBackward0").report;
  ASSERT_EQ(report.levels.size(), 1u);
  EXPECT_NE(report.levels[0].reason.find("backward takes 9.0x its forward"), std::string::npos)
      << report.levels[0].reason;
  EXPECT_EQ(report.run.windows, 3);
  ASSERT_EQ(source.requests().size(), 4u);
  EXPECT_EQ(source.requests()[3].parent, "decoder");
}

TEST(Bisection, AHotterModuleItMustNotLookInsideIsNamedAsALeafIsWithoutALook) {
  FakeModule root = AnomalyBesideAHotterModule(0.1);
  root.children[1].opaque_reason = "compiled with torch.compile: measured as one leaf";
  FakeSource source(root);
  BisectExpecting(source, "decoder", "AddmmBackward0");  // its Linears' backward, both
  EXPECT_EQ(source.requests().size(), 3u) << "no window inside the compiled decoder";
}

TEST(Bisection, NothingStandsOutAmongEvenChildren) {
  FakeModule root;
  root.type = "Model";
  for (const char* name : {"a", "b", "c", "d"}) root.children.push_back(Leaf(name, 1.0, 2.0));
  FakeSource source(root);
  const RunReport report = Bisect(source).report;
  EXPECT_FALSE(report.hotspot.has_value());
  ASSERT_EQ(report.levels.size(), 1u);
  EXPECT_TRUE(report.levels[0].chosen.empty());
  EXPECT_TRUE(source.source_queries().empty());
  EXPECT_TRUE(report.doubts.empty());
}

TEST(Bisection, NothingStandingOutOnABusyMachineIsAsUnsure) {
  FakeModule root;
  root.type = "Model";
  for (const char* name : {"a", "b", "c", "d"}) root.children.push_back(Leaf(name, 1.0, 2.0));
  FakeSource source(root);
  double stall = 0;
  BisectSettings busy{3, 16, [&]() -> std::optional<double> { return stall += 1000.0; }};
  const RunReport report = RunBisection(source, busy, [](const std::string&) {}).report;
  EXPECT_FALSE(report.hotspot.has_value());
  ASSERT_EQ(report.doubts.size(), 1u);
  EXPECT_EQ(report.doubts[0].rfind("other work kept the CPUs busy", 0), 0u);
  EXPECT_TRUE(SaysWithPrefix(report, "low confidence: other work kept the CPUs busy"));
}

TEST(Bisection, ADivergedTrainingIsMeasuredAndTheReportSaysSo) {
  FakeSource source(Transformer());
  source.losses = LossCheck{3, 1};
  const RunReport report = Bisect(source).report;
  ASSERT_TRUE(report.hotspot.has_value()) << "measured all the same";
  // The baseline and two levels: 3 windows of 3 steps, one non-finite in each.
  EXPECT_TRUE(SaysWithPrefix(report, "the loss was not finite (NaN or infinite) in 3 of 9 steps"))
      << ::testing::PrintToString(report.data_quality);

  FakeSource healthy(Transformer());
  healthy.losses = LossCheck{3, 0};
  EXPECT_FALSE(SaysWithPrefix(Bisect(healthy).report, "the loss was not finite"));
}

// On a GPU whose device waits for the host most of the step, the host's time is the step's: the
// levels rank by it and record without the GPU probe (its per-launch records are what such
// windows cost); the baseline still records the device.
TEST(Bisection, AHostBoundGpuStepIsBisectedOnHostTimeWithoutTheGpuProbeInTheLevels) {
  FakeSource source(Transformer());
  source.RunOnGpu(0.2);
  const RunReport report = Bisect(source).report;

  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2.mlp");
  EXPECT_EQ(report.levels_ranked_by, "host");
  ASSERT_TRUE(report.gpu.has_value()) << "the baseline recorded the device";
  EXPECT_NEAR(report.gpu->busy_fraction, 0.2, 0.05);
  EXPECT_TRUE(SaysWithPrefix(report, "host-bound step: the device was busy 2"));
  const std::vector<WindowRequest>& requests = source.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_TRUE(requests[1].device_activity) << "the baseline";
  EXPECT_FALSE(requests[2].device_activity) << "level 1";
  EXPECT_FALSE(requests[3].device_activity) << "level 2";
}

TEST(Bisection, ABusyGpuStepIsBisectedOnDeviceTimeWithTheGpuProbeInEveryLevel) {
  FakeSource source(Transformer());
  source.RunOnGpu(0.9);
  const RunReport report = Bisect(source).report;

  ASSERT_TRUE(report.hotspot.has_value());
  EXPECT_EQ(report.hotspot->path, "blocks.2.mlp");
  EXPECT_EQ(report.levels_ranked_by, "device");
  EXPECT_FALSE(SaysWithPrefix(report, "host-bound step"));
  for (const WindowRequest& request : source.requests()) EXPECT_TRUE(request.device_activity);
  ASSERT_FALSE(report.levels.empty());
  EXPECT_GT(report.levels[0].candidates[0].gpu_ms, 0) << "the levels' windows timed kernels";

  FakeSource cpu(Transformer());
  EXPECT_EQ(Bisect(cpu).report.levels_ranked_by, "host") << "a CPU run ranks by host time";
}

}  // namespace
}  // namespace advisor
