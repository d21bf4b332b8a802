// The autotest's controls (tests/script_runs/ab_controls_test.cpp) replayed from recordings of
// their blocks (tests/data/ab_controls, recorded with ADVISOR_CONTROLS_RECORD=FILE set for that
// test): on this project's busy 2-core VM (busy-N.json, load average 5 to 8 from other builds,
// and overloaded-1.json at 9 to 10), and on an H200 (h200-N.json: the steps GPU work, the
// slowdown 5 % more of it; scripts/gpu-check.sh controls): a no-op candidate and a planted 5 %
// slowdown, 120 pairs of blocks each, cut into 20 experiments of the autotest's 6 pairs and
// decided as the autotest decides. Deterministic: the steps were timed once, so what is checked
// here is the estimator on real bursts and a real GPU's steps, not the machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/ab_stats.h"
#include "engine/autotest/step_blocks.h"
#include "tests/autotest/ab_outcome_tally.h"

namespace advisor {
namespace {

constexpr int kExperiments = 20;

testing::OutcomeTally Decide(const std::string& recording, const std::string& candidate) {
  const BlocksResult result =
      ReadBlocksResult(std::string(ADVISOR_TEST_CONTROLS_DIR) + "/" + recording);
  const BlockDesign autotest;
  const AbSettings settings;
  const std::vector<AbRound> rounds = CandidateRounds(result, candidate, autotest.block_steps);
  EXPECT_EQ(rounds.size(), static_cast<std::size_t>(autotest.cycles * kExperiments));
  testing::OutcomeTally counts;
  for (std::size_t first = 0; first + autotest.cycles <= rounds.size(); first += autotest.cycles) {
    const std::vector<AbRound> experiment(rounds.begin() + first,
                                          rounds.begin() + first + autotest.cycles);
    const AbMeasurement measurement = MeasureAb(experiment, 1, 1, settings.statistic);
    counts.Add(DecideAb(measurement, settings.noise_threshold, /*last_round=*/true).outcome);
  }
  return counts;
}

class AbControlsReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(AbControlsReplay, ANoOpIsNoChangeAndTheFivePercentSlowdownIsFound) {
  const testing::OutcomeTally no_op = Decide(GetParam(), "no-op");
  const testing::OutcomeTally slower = Decide(GetParam(), "slower");
  // Issue #28's bar: a no-op "no change" in >= 95 %, the slowdown found in >= 90 %.
  EXPECT_GE(no_op.no_change, kExperiments - 1);
  EXPECT_GE(slower.slower, kExperiments * 9 / 10);
  EXPECT_EQ(slower.faster, 0);
}

// At load average 10 on 2 cores most steps wait for a core (15 to 40 ms for 10.5), often all 5 of
// a block, and 6 pairs cannot find 0.5 ms in that (1 of 20, the old estimator 0): the no-op must
// still be no change and the slowdown never called a speedup.
TEST(AbControlsOverloaded, TheFalseVerdictsStayAway) {
  const testing::OutcomeTally no_op = Decide("overloaded-1.json", "no-op");
  EXPECT_GE(no_op.no_change, kExperiments - 1);
  EXPECT_EQ(Decide("overloaded-1.json", "slower").faster, 0);
}

INSTANTIATE_TEST_SUITE_P(Recordings, AbControlsReplay,
                         ::testing::Values("busy-1.json", "busy-2.json", "busy-3.json",
                                           "h200-1.json"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.find('.'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace advisor
