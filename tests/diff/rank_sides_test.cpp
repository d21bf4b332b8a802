#include "engine/diff/rank_sides.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "engine/diff/diff_markdown.h"
#include "engine/diff/report_diff.h"

namespace advisor {
namespace {

RankSummary Rank(int rank, double step_ms, double forward_ms, double backward_ms) {
  RankSummary summary;
  summary.rank = rank;
  summary.step_ms = step_ms;
  summary.forward_ms = forward_ms;
  summary.backward_ms = backward_ms;
  summary.optimizer_ms = 1;
  summary.data_wait_ms = 0.5;
  summary.exposed_comm_ms = rank == 0 ? 8 : 1;
  summary.wait_ms = rank == 0 ? 9 : 0.5;
  return summary;
}

// Two ranks of a job whose rank 1 is late in its forward: rank 0 waits in the backward's
// collectives.
RunReport Job() {
  RunReport run;
  run.distributed = DistributedSummary{};
  run.distributed->ranks = {Rank(0, 16, 5, 10), Rank(1, 17, 10, 5)};
  run.distributed->straggler = Straggler{};
  run.distributed->straggler->rank = 1;
  run.distributed->straggler->late_ms = 8.9;
  run.distributed->straggler->path = "blocks.2.mixer";
  return run;
}

TEST(RankSides, TwoRanksCompareByPhase) {
  const RunReport run = Job();
  const ReportDiff diff = DiffReports(RankSide(run, 0, "r"), RankSide(run, 1, "r"));
  EXPECT_DOUBLE_EQ(diff.step.delta_ms, 1);
  std::map<std::string, DeltaPart> phases;
  double sum = 0;
  for (const DeltaPart& phase : diff.phases) {
    phases[phase.name] = phase;
    sum += phase.delta_ms;
  }
  EXPECT_DOUBLE_EQ(phases.at("forward").delta_ms, 5);
  EXPECT_DOUBLE_EQ(phases.at("backward").delta_ms, -5);
  // The rank's phases leave 16 - 5 - 10 - 1 - 0.5 of its step: its rest.
  EXPECT_DOUBLE_EQ(*phases.at("rest").before_ms, -0.5);
  EXPECT_NEAR(sum + diff.not_attributed_ms, diff.step.delta_ms, 1e-9);
  EXPECT_TRUE(diff.modules.empty());
  EXPECT_FALSE(diff.step.delta_low_ms);  // a rank keeps no step samples
  // No module and no op: the summary claims no share for them.
  EXPECT_EQ(DiffToMarkdown(diff).find("the modules explain"), std::string::npos);
}

TEST(RankSides, NotesTheCommunicationAndTheStraggler) {
  const std::vector<std::string> notes = RankNotes(Job(), 0, 1);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[1].find("8.000 ms, then 1.000 ms"), std::string::npos) << notes[1];
  EXPECT_EQ(notes[2], "rank 1 is the job's straggler, 8.900 ms late per step in blocks.2.mixer");
}

TEST(RankSides, ARankNotInTheReportIsOneLine) {
  try {
    RankSide(Job(), 3, "runs/job");
    FAIL() << "took a rank the report does not have";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "runs/job: no rank 3 in its ranks (0, 1)");
  }
  EXPECT_THROW(RankSide(RunReport{}, 0, "runs/one"), std::runtime_error);
}

}  // namespace
}  // namespace advisor
