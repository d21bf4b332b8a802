// The in-process A/B's statistics, proven on controls (issue #28): a knob that changes nothing
// must come out "no change", and a planted 5 % slowdown must be found, in one run of a script
// whose steps the machine's other work slows as it likes. One run holds many experiments: its
// cycles are cut into consecutive groups of the autotest's size, each decided as the autotest
// decides a candidate (engine/autotest/in_process_ab.cpp). With ADVISOR_CONTROLS_RECORD=FILE set,
// the run's blocks are kept in FILE: tests/data/ab_controls holds three such recordings, which
// tests/autotest/ab_controls_replay_test.cpp decides again without a clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/autotest/ab_stats.h"
#include "engine/autotest/process.h"
#include "engine/autotest/step_blocks.h"
#include "engine/script/script_candidate.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

const std::string kPython = ADVISOR_PYTHON;
const std::string kScripts = ADVISOR_TEST_SCRIPTS_DIR;

constexpr int kExperiments = 20;
constexpr double kNoiseBand = 0.02;  // AbSettings' default

CandidateSpec Control(const std::string& id, const RecipeOverrides& overrides) {
  CandidateSpec candidate;
  candidate.id = id;
  candidate.overrides = overrides;
  return candidate;
}

// Each experiment's decision over `cycles` consecutive pairs of blocks.
std::vector<AbDecision::Outcome> Decisions(const BlocksResult& result, const std::string& id,
                                           const BlockDesign& design, int cycles) {
  const std::vector<AbRound> rounds = CandidateRounds(result, id, design.block_steps);
  std::vector<AbDecision::Outcome> outcomes;
  for (std::size_t first = 0; first + cycles <= rounds.size(); first += cycles) {
    const std::vector<AbRound> experiment(rounds.begin() + first, rounds.begin() + first + cycles);
    const AbMeasurement measurement = MeasureAb(experiment, 1, 1, AbSettings{}.statistic);
    outcomes.push_back(DecideAb(measurement, kNoiseBand, /*last_round=*/true).outcome);
  }
  return outcomes;
}

int Count(const std::vector<AbDecision::Outcome>& outcomes, AbDecision::Outcome outcome) {
  return static_cast<int>(std::count(outcomes.begin(), outcomes.end(), outcome));
}

TEST(AbControls, ANoOpIsNoChangeAndAFivePercentSlowdownIsSeldomCalledFaster) {
  testing::ScratchDir dir;
  const BlockDesign autotest;  // the design each experiment stands for
  BlockDesign run = autotest;
  run.cycles = autotest.cycles * kExperiments;

  // cuDNN's benchmark mode does nothing on a CPU; deterministic algorithms cost this script
  // 0.5 ms on a 10 ms step.
  RecipeOverrides no_op;
  no_op.cudnn_benchmark = true;
  RecipeOverrides slower;
  slower.deterministic = true;
  ScriptCandidateOptions options;
  options.command = {kPython,     kScripts + "/deterministic_train.py",
                     "--steps",   "100000",
                     "--cost-ms", "0.5",
                     "--step-ms", "9.5"};
  options.probe_dir = ADVISOR_PROBE_DIR;
  ScriptCandidateRunner runner(options, AbSettings{});
  const std::string result_path = dir / "blocks.json";
  const CandidateCommand command =
      *runner.BlocksCommand({Control("no-op", no_op), Control("slower", slower)}, run, result_path);

  ProcessSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  spec.timeout = std::chrono::minutes(4);
  const ProcessOutcome outcome = RunProcess(spec);
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  const BlocksResult result = ReadBlocksResult(result_path);
  ASSERT_TRUE(result.complete);
  if (const char* record = std::getenv("ADVISOR_CONTROLS_RECORD")) {
    std::filesystem::copy_file(result_path, record,
                               std::filesystem::copy_options::overwrite_existing);
  }

  const auto no_op_outcomes = Decisions(result, "no-op", autotest, autotest.cycles);
  const auto slower_outcomes = Decisions(result, "slower", autotest, autotest.cycles);
  ASSERT_EQ(no_op_outcomes.size(), static_cast<std::size_t>(kExperiments));
  ASSERT_EQ(slower_outcomes.size(), static_cast<std::size_t>(kExperiments));
  // The false verdicts, which the machine's load must not make common. Where the load swamps
  // the 0.5 ms (at load average 10 on 2 cores the pairs spread 0.2 to 0.3 in log ratio) the
  // interval is as wide as it should be and a 95 % interval misses at its rate: 1 experiment in
  // 60 went wrong each way there (docs/benchmarks.md#the-autotests-controls). So a run of 20 may
  // hold one such miss beside the bar of >= 95 % "no change" (asserted exactly on
  // recorded runs: tests/autotest/ab_controls_replay_test.cpp): a no-op called a change in at
  // most 2, the slowdown called a speedup in at most 1.
  EXPECT_GE(Count(no_op_outcomes, AbDecision::Outcome::kNoChange), kExperiments - 2);
  EXPECT_LE(Count(slower_outcomes, AbDecision::Outcome::kFaster), 1);
  // The slowdown's size, over all its pairs. How often 6 pairs find it depends on the machine's
  // load: 20 of 20 at load average 3 to 8 on 2 cores, 1 to 4 at 9 to 11, where most steps wait
  // for a core (docs/benchmarks.md#the-autotests-controls). Issue #28's bar on it is asserted on
  // recorded runs (tests/autotest/ab_controls_replay_test.cpp), not on this one's clock.
  const std::vector<AbRound> all = CandidateRounds(result, "slower", autotest.block_steps);
  const double speedup = MeasureAb(all, 1, 1, AbSettings{}.statistic).speedup;
  EXPECT_GT(speedup, 0.90);
  EXPECT_LT(speedup, 0.99);
  std::printf(
      "controls: no-op no-change in %d of %d, 5 %% slowdown found in %d of %d "
      "(speedup over all %zu pairs %.3fx)\n",
      Count(no_op_outcomes, AbDecision::Outcome::kNoChange), kExperiments,
      Count(slower_outcomes, AbDecision::Outcome::kSlower), kExperiments, all.size(), speedup);
}

}  // namespace
}  // namespace advisor
