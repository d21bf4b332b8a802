// Several ranks' windows (engine/script/rank_windows): the rank each window is decided on, the
// steps every rank must share, and the per-rank summary with its straggler, on synthetic windows.
#include "engine/script/rank_windows.h"

#include <gtest/gtest.h>

#include <stdexcept>

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
    step.phases = {{Phase::kForward, step.start_ns, step.end_ns}};
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
  EXPECT_THROW(ranks.SlowestSteps({Window(5, 3, 2, false).timeline.steps,
                                   Window(5, 2, 2, false).timeline.steps}),
               std::runtime_error);
}

TEST(RankWindows, TheSummaryNamesTheStragglerAndTheModuleOfTheDeepestWindow) {
  RankWindows ranks({0, 1});
  EXPECT_FALSE(ranks.Summarise().has_value()) << "no baseline yet";
  for (const Instrumentation instrumentation :
       {Instrumentation::kNone, Instrumentation::kChildrenOf}) {
    std::vector<RecordedWindow> windows;
    const bool markers = instrumentation != Instrumentation::kNone;
    windows.push_back(Window(5, 3, 2, markers));
    windows.push_back(Window(5, 3, 7, markers));
    ranks.Decide(instrumentation, std::move(windows));
  }
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
