// The in-process A/B's statistics, proven on controls (issue #28): a knob that changes nothing
// must come out "no change", and a planted 5 % slowdown must be found. One run holds many
// experiments: its cycles are cut into consecutive groups of the autotest's size, each decided as
// the autotest decides a candidate (engine/autotest/in_process_ab.cpp). Two runs: on the host, a
// script whose steps are sleeps that the machine's other work slows as it likes; and where the
// Python's torch sees a CUDA device, a script whose steps and planted cost are GPU work, which
// meets a GPU's noise instead (deterministic_gpu_train.py). With ADVISOR_CONTROLS_RECORD=FILE
// set, a run's blocks are kept in FILE (run one test: each writes it): tests/data/ab_controls
// holds such recordings, which tests/autotest/ab_controls_replay_test.cpp decides again without
// a clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
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

// One run of the controls: each experiment's verdict on the two candidates, and the slowdown
// over all its pairs.
struct ControlsRun {
  std::vector<AbDecision::Outcome> no_op;
  std::vector<AbDecision::Outcome> slower;
  double slower_speedup = 0;
  std::size_t slower_pairs = 0;
  std::string script_stdout;
};

// Runs `script` (the Python, the script and its arguments) with two candidates in the autotest's
// block design over kExperiments times its cycles: a no-op, cuDNN's benchmark mode (neither
// script has a convolution), and the slowdown each script plants on deterministic algorithms.
std::optional<ControlsRun> RunControls(const std::vector<std::string>& script) {
  testing::ScratchDir dir;
  const BlockDesign autotest;  // the design each experiment stands for
  BlockDesign design = autotest;
  design.cycles = autotest.cycles * kExperiments;
  RecipeOverrides no_op;
  no_op.cudnn_benchmark = true;
  RecipeOverrides slower;
  slower.deterministic = true;
  ScriptCandidateOptions options;
  options.command = script;
  options.probe_dir = ADVISOR_PROBE_DIR;
  ScriptCandidateRunner runner(options, AbSettings{});
  const std::string result_path = dir / "blocks.json";
  const CandidateCommand command = *runner.BlocksCommand(
      {Control("no-op", no_op), Control("slower", slower)}, design, result_path);

  ProcessSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  spec.timeout = std::chrono::minutes(4);
  const ProcessOutcome outcome = RunProcess(spec);
  if (!outcome.Succeeded()) {
    ADD_FAILURE() << outcome.Describe() << "\n" << outcome.stderr_tail;
    return std::nullopt;
  }
  const BlocksResult result = ReadBlocksResult(result_path);
  if (!result.complete) {
    ADD_FAILURE() << "the script ended before the blocks' schedule did";
    return std::nullopt;
  }
  if (const char* record = std::getenv("ADVISOR_CONTROLS_RECORD")) {
    std::filesystem::copy_file(result_path, record,
                               std::filesystem::copy_options::overwrite_existing);
  }
  ControlsRun run;
  run.no_op = Decisions(result, "no-op", autotest, autotest.cycles);
  run.slower = Decisions(result, "slower", autotest, autotest.cycles);
  const std::vector<AbRound> all = CandidateRounds(result, "slower", autotest.block_steps);
  run.slower_speedup = MeasureAb(all, 1, 1, AbSettings{}.statistic).speedup;
  run.slower_pairs = all.size();
  run.script_stdout = outcome.stdout_text;
  EXPECT_EQ(run.no_op.size(), static_cast<std::size_t>(kExperiments));
  EXPECT_EQ(run.slower.size(), static_cast<std::size_t>(kExperiments));
  // The slowdown's size over all its pairs: 5 % planted, measured 1 % to 10 %.
  EXPECT_GT(run.slower_speedup, 0.90);
  EXPECT_LT(run.slower_speedup, 0.99);
  std::printf(
      "controls: no-op no-change in %d of %d, 5 %% slowdown found in %d of %d, called faster in "
      "%d (speedup over all %zu pairs %.3fx)\n",
      Count(run.no_op, AbDecision::Outcome::kNoChange), kExperiments,
      Count(run.slower, AbDecision::Outcome::kSlower), kExperiments,
      Count(run.slower, AbDecision::Outcome::kFaster), run.slower_pairs, run.slower_speedup);
  return run;
}

TEST(AbControls, ANoOpIsNoChangeAndAFivePercentSlowdownIsSeldomCalledFaster) {
  // Deterministic algorithms cost this script 0.5 ms on a 10 ms step.
  const std::optional<ControlsRun> run =
      RunControls({kPython, kScripts + "/deterministic_train.py", "--steps", "100000", "--cost-ms",
                   "0.5", "--step-ms", "9.5"});
  ASSERT_TRUE(run);
  // The false verdicts, which the machine's load must not make common. Where the load swamps
  // the 0.5 ms (at load average 10 on 2 cores the pairs spread 0.2 to 0.3 in log ratio) the
  // interval is as wide as it should be and a 95 % interval misses at its rate: 1 experiment in
  // 60 went wrong each way there (docs/benchmarks.md#the-autotests-controls). So a run of 20 may
  // hold one such miss beside the bar of >= 95 % "no change" (asserted exactly on
  // recorded runs: tests/autotest/ab_controls_replay_test.cpp): a no-op called a change in at
  // most 2, the slowdown called a speedup in at most 1. How often 6 pairs find the slowdown
  // depends on the machine's load: 20 of 20 at load average 3 to 8 on 2 cores, 1 to 4 at 9 to
  // 11, where most steps wait for a core; issue #28's bar on it is asserted on recorded runs, not
  // on this one's clock.
  EXPECT_GE(Count(run->no_op, AbDecision::Outcome::kNoChange), kExperiments - 2);
  EXPECT_LE(Count(run->slower, AbDecision::Outcome::kFaster), 1);
}

bool PythonSeesCuda() {
  ProcessSpec spec;
  spec.argv = {kPython, "-c", "import torch; print(torch.cuda.is_available())"};
  const ProcessOutcome outcome = RunProcess(spec);
  return outcome.Succeeded() && outcome.stdout_text == "True\n";
}

TEST(AbControlsCuda, ANoOpIsNoChangeAndAFivePercentSlowdownIsFound) {
  if (!PythonSeesCuda()) GTEST_SKIP() << "needs a CUDA device that " << kPython << "'s torch sees";
  // The step a chain of matmuls (10 to 20 ms on an H200), deterministic algorithms 5 % more of
  // them, calibrated with CUDA events at the script's start; its calibration is printed.
  const std::optional<ControlsRun> run =
      RunControls({kPython, kScripts + "/deterministic_gpu_train.py", "--steps", "100000"});
  ASSERT_TRUE(run);
  std::printf("%s", run->script_stdout.c_str());
  // Issue #28's bars, live: no host's load competes with the GPU's kernels here.
  EXPECT_GE(Count(run->no_op, AbDecision::Outcome::kNoChange), kExperiments - 1);
  EXPECT_GE(Count(run->slower, AbDecision::Outcome::kSlower), kExperiments * 9 / 10);
  EXPECT_EQ(Count(run->slower, AbDecision::Outcome::kFaster), 0);
}

}  // namespace
}  // namespace advisor
