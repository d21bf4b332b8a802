// Several ranks' windows (engine/script/rank_windows): the rank each window is decided on, the
// steps every rank must share, and the per-rank summary with its straggler, on synthetic windows;
// and whether the straggler is there outside the profiled windows, down to the rules' findings.
#include "engine/script/rank_windows.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "engine/facts/facts.h"
#include "engine/multi_rank/unprofiled_check.h"
#include "engine/rules/rule_runner.h"
#include "engine/rules/rule_set.h"

namespace advisor {
namespace {

constexpr TimeNs kMs = 1'000'000;

OpEvent Op(const std::string& name, TimeNs start_ms, TimeNs end_ms, ThreadId thread = 1) {
  OpEvent op;
  op.name = name;
  op.scope = OpScope::kForward;
  op.thread = thread;
  op.start_ns = start_ms * kMs;
  op.end_ns = end_ms * kMs;
  return op;
}

// Steps of 10 ms from step `first`, each with `work_ms` of the rank's own work in module "slow"
// (bracketed by markers where `markers`), then a gloo all-reduce on gloo's thread until the
// step's end, which starts once the work is done: the rank that works longest waits least.
RecordedWindow Window(int first, int steps, TimeNs work_ms, bool markers) {
  RecordedWindow window;
  Timeline& timeline = window.timeline;
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = 10 * i;
    StepSpan step;
    step.index = first + i;
    step.start_ns = start * kMs;
    step.end_ns = (start + 10) * kMs;
    step.phases.push_back({Phase::kForward, step.start_ns, step.end_ns});
    timeline.steps.push_back(step);
    if (markers) timeline.markers.push_back({"slow", MarkerKind::kForwardEnter, 1, start * kMs});
    timeline.ops.push_back(Op("aten::mm", start, start + work_ms));
    if (markers) {
      timeline.markers.push_back({"slow", MarkerKind::kForwardExit, 1, (start + work_ms) * kMs});
    }
    timeline.ops.push_back(Op("gloo:all_reduce", start + work_ms, start + 10, /*thread=*/2));
  }
  return window;
}

TEST(RankWindows, EachWindowIsDecidedOnTheRankThatWaitedLeast) {
  RankWindows ranks({0, 1});
  std::vector<RecordedWindow> windows;
  windows.push_back(Window(5, 3, 2, false));
  windows.push_back(Window(5, 3, 7, false));
  const RecordedWindow decided = ranks.Decide(Instrumentation::kNone, std::move(windows));
  ASSERT_EQ(decided.timeline.ops.size(), 3u) << "the collectives are left to the summary";
  EXPECT_EQ(decided.timeline.ops[0].end_ns - decided.timeline.ops[0].start_ns, 7 * kMs)
      << "rank 1's window";
  EXPECT_NE(ranks.DecisionsNote().find("rank 1 in 1 of 1 windows"), std::string::npos);
}

TEST(RankWindows, RanksThatMeasuredOtherStepsAreRefused) {
  RankWindows ranks({0, 1});
  std::vector<RecordedWindow> windows;
  windows.push_back(Window(5, 3, 2, false));
  windows.push_back(Window(6, 3, 2, false));
  try {
    ranks.Decide(Instrumentation::kNone, std::move(windows));
    FAIL();
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "the ranks measured different steps (rank 0: 5-7, rank 1: 6-8)");
  }
  EXPECT_THROW(ranks.TimedSteps(
                   {Window(5, 3, 2, false).timeline.steps, Window(5, 2, 2, false).timeline.steps}),
               std::runtime_error);
}

// Two ranks' baseline and one level's window: rank 1 works 7 ms a step in module "slow", rank 0
// 2 ms (markers in the level's window only); the windows of `follows_the_levels`.
void DecideBaselineAndLevel(RankWindows& ranks, bool follows_the_levels = true) {
  for (const Instrumentation instrumentation :
       {Instrumentation::kNone, Instrumentation::kChildrenOf}) {
    std::vector<RecordedWindow> windows;
    const bool markers = follows_the_levels && instrumentation != Instrumentation::kNone;
    windows.push_back(Window(5, 3, 2, markers));
    windows.push_back(Window(5, 3, 7, markers));
    ranks.Decide(instrumentation, std::move(windows), follows_the_levels);
  }
}

TEST(RankWindows, TheSummaryNamesTheStragglerAndTheModuleOfTheDeepestWindow) {
  RankWindows ranks({0, 1});
  EXPECT_FALSE(ranks.Summarise().has_value()) << "no baseline yet";
  DecideBaselineAndLevel(ranks);
  const std::optional<DistributedSummary> summary = ranks.Summarise();
  ASSERT_TRUE(summary.has_value());
  ASSERT_EQ(summary->ranks.size(), 2u);
  EXPECT_EQ(summary->collectives_matched, 3);
  ASSERT_TRUE(summary->straggler.has_value());
  EXPECT_EQ(summary->straggler->rank, 1);
  EXPECT_EQ(summary->straggler->path, "slow");
  EXPECT_NEAR(summary->straggler->path_excess_ms, 5.0, 1e-6);
  EXPECT_GT(summary->ranks[0].comm_ms, summary->ranks[1].comm_ms) << "rank 0 waits for rank 1";
}

TEST(RankWindows, AWindowOffTheLevelsPathLeavesTheirDeepestWindowToTheSummary) {
  RankWindows ranks({0, 1});
  DecideBaselineAndLevel(ranks);
  // Windows that follow the memory's holder elsewhere, with no module marked in them: were the
  // last the deepest, the summary would name no module.
  DecideBaselineAndLevel(ranks, /*follows_the_levels=*/false);
  const std::optional<DistributedSummary> summary = ranks.Summarise();
  ASSERT_TRUE(summary.has_value());
  ASSERT_TRUE(summary->straggler.has_value());
  EXPECT_EQ(summary->straggler->path, "slow") << "the levels' deepest window's module";
}

// ---- Whether a straggler of the profiled windows is there outside them (unprofiled_check.h) -----

// Steps of 10 ms from step `first` as the step clock cuts them: `forward_ms` of forward, the rest
// backward. Where `work` is given, also the profiled window's events: `work_ms` of the rank's own
// work in module "slow" in the forward, then a gloo all-reduce until the step's end (the rank that
// works longest waits least), as Window does.
std::vector<StepSpan> Steps(int first, int steps, TimeNs forward_ms) {
  std::vector<StepSpan> spans;
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = 10 * i;
    spans.push_back(StepOfPhases(first + i, start * kMs, start * kMs, (start + forward_ms) * kMs,
                                 (start + 10) * kMs, (start + 10) * kMs));
  }
  return spans;
}

RecordedWindow PhasedWindow(int first, int steps, TimeNs work_ms, TimeNs forward_ms, bool markers) {
  RecordedWindow window = Window(first, steps, work_ms, markers);
  window.timeline.steps = Steps(first, steps, forward_ms);
  return window;
}

// Rank 1 works 5 ms a step longer than rank 0 in the profiled windows, all of it in its forward
// (or, with `forward_in_profiled` false, its forward no longer than rank 0's: the excess after
// it); in the steps timed without a profiler each rank's forward takes `unprofiled_forward_ms`.
RankWindows RanksWithStraggler(TimeNs rank0_unprofiled_forward_ms,
                               TimeNs rank1_unprofiled_forward_ms,
                               bool forward_in_profiled = true) {
  RankWindows ranks({0, 1});
  ranks.TimedSteps(
      {Steps(1, 8, rank0_unprofiled_forward_ms), Steps(1, 8, rank1_unprofiled_forward_ms)});
  for (const Instrumentation instrumentation :
       {Instrumentation::kNone, Instrumentation::kChildrenOf}) {
    const bool markers = instrumentation != Instrumentation::kNone;
    std::vector<RecordedWindow> windows;
    windows.push_back(PhasedWindow(10, 4, 2, 2, markers));
    windows.push_back(PhasedWindow(10, 4, 7, forward_in_profiled ? 7 : 2, markers));
    ranks.Decide(instrumentation, std::move(windows));
  }
  return ranks;
}

const RuleSet& BuiltinRules() {
  static const RuleSet rules = [] {
    std::vector<RuleDiagnostic> errors;
    RuleSet loaded = RuleSet::Load({ADVISOR_SOURCE_RULES_DIR}, errors);
    EXPECT_TRUE(errors.empty());
    return loaded;
  }();
  return rules;
}

// The built-in rules on a report of the summary: the ids of the rules that fired.
std::set<std::string> RulesFiredOn(const DistributedSummary& summary) {
  RunReport report;
  report.run.device = "cpu";
  report.step.median_ms = 10;
  report.distributed = summary;
  std::set<std::string> fired;
  for (const Finding& finding : RunRules(BuiltinRules(), BuildFacts(report)).findings) {
    fired.insert(finding.rule);
  }
  return fired;
}

TEST(UnprofiledCheck, EachRanksUnprofiledStepsAreInTheSummary) {
  const std::optional<DistributedSummary> summary = RanksWithStraggler(3, 4).Summarise();
  ASSERT_TRUE(summary.has_value());
  ASSERT_EQ(summary->ranks.size(), 2u);
  for (const RankSummary& rank : summary->ranks) {
    ASSERT_TRUE(rank.unprofiled.has_value());
    EXPECT_EQ(rank.unprofiled->steps, 8);
    EXPECT_NEAR(rank.unprofiled->step_ms, 10.0, 1e-9);
    EXPECT_NEAR(rank.unprofiled->forward_ms + rank.unprofiled->backward_ms, 10.0, 1e-9);
  }
  EXPECT_NEAR(summary->ranks[0].unprofiled->forward_ms, 3.0, 1e-9);
  EXPECT_NEAR(summary->ranks[1].unprofiled->forward_ms, 4.0, 1e-9);
}

TEST(UnprofiledCheck, AnExcessOnlyInTheProfiledStepsGivesNoFindingAndSaysWhy) {
  const std::optional<DistributedSummary> summary = RanksWithStraggler(3, 3).Summarise();
  ASSERT_TRUE(summary.has_value());
  ASSERT_TRUE(summary->straggler.has_value()) << "the profiled steps still name rank 1";
  const Straggler& straggler = *summary->straggler;
  EXPECT_EQ(straggler.rank, 1);
  EXPECT_NEAR(straggler.pre_backward_excess_ms.value_or(-1), 5.0, 1e-9);
  EXPECT_NEAR(straggler.unprofiled_excess_ms.value_or(-1), 0.0, 1e-9);
  EXPECT_EQ(straggler.holds_unprofiled, false);
  EXPECT_EQ(UnconfirmedStragglerNote(*summary),
            "rank 1 computed 5.0 ms more per step than the other ranks in the profiled steps "
            "(5.0 ms more before its backward) but not in the steps timed without a profiler "
            "(+0.0 ms before its backward): taken for the measurement's own effect, no "
            "straggler finding");
  const std::set<std::string> fired = RulesFiredOn(*summary);
  EXPECT_EQ(fired.count("straggler-rank"), 0u);
  EXPECT_EQ(fired.count("unbalanced-data-per-rank"), 0u);
}

TEST(UnprofiledCheck, AnExcessInBothGivesTheFinding) {
  const std::optional<DistributedSummary> summary = RanksWithStraggler(2, 7).Summarise();
  ASSERT_TRUE(summary.has_value());
  ASSERT_TRUE(summary->straggler.has_value());
  EXPECT_NEAR(summary->straggler->unprofiled_excess_ms.value_or(-1), 5.0, 1e-9);
  EXPECT_EQ(summary->straggler->holds_unprofiled, true);
  EXPECT_EQ(UnconfirmedStragglerNote(*summary), "");
  EXPECT_EQ(RulesFiredOn(*summary).count("straggler-rank"), 1u);
}

TEST(UnprofiledCheck, AnExcessAfterTheForwardCannotBeConfirmed) {
  // Rank 1's forward is no longer than rank 0's in any step: its excess lies where every rank's
  // time is the slowest's outside the windows.
  const std::optional<DistributedSummary> summary =
      RanksWithStraggler(2, 2, /*forward_in_profiled=*/false).Summarise();
  ASSERT_TRUE(summary.has_value());
  ASSERT_TRUE(summary->straggler.has_value());
  EXPECT_EQ(summary->straggler->holds_unprofiled, false);
  EXPECT_NE(UnconfirmedStragglerNote(*summary).find("its excess lies in the backward"),
            std::string::npos)
      << UnconfirmedStragglerNote(*summary);
  EXPECT_EQ(RulesFiredOn(*summary).count("straggler-rank"), 0u);
}

TEST(RankWindows, OneRankIsNotSummarised) {
  RankWindows ranks({0});
  std::vector<RecordedWindow> windows;
  windows.push_back(Window(5, 3, 2, false));
  EXPECT_EQ(ranks.Decide(Instrumentation::kNone, std::move(windows)).timeline.steps.size(), 3u);
  EXPECT_FALSE(ranks.Summarise().has_value());
  EXPECT_EQ(ranks.DecisionsNote(), "");
}

}  // namespace
}  // namespace advisor
