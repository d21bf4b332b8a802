// The script door's CandidateRunner: what each run is told, and how two runs' losses compare.
#include "engine/script/script_candidate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace advisor {
namespace {

using nlohmann::json;

TEST(ScriptCandidate, EachRunIsTheUsersCommandWithTheCandidatesKnobs) {
  ScriptCandidateOptions options;
  options.command = {"python", "train.py", "--lr", "0.1"};
  options.probe_dir = "/opt/advisor/probe";
  CandidateSpec candidate;
  candidate.id = "tf32-matmul+dataloader-workers";
  candidate.overrides.allow_tf32 = true;
  candidate.overrides.dataloader_workers = ThreadCount{};  // one per physical core
  const CandidateCommand command =
      ScriptCandidateRunner(options, AbSettings{}).BenchmarkCommand(&candidate, "/tmp/x/r.json");
  EXPECT_EQ(command.argv, options.command) << "the script is run as the user runs it";
  EXPECT_EQ(command.env.at("PYTHONPATH").rfind("/opt/advisor/probe/site", 0), 0u);
  const json config = json::parse(command.env.at("ADVISOR_PROBE_BENCH"));
  EXPECT_EQ(config["result"], "/tmp/x/r.json");
  EXPECT_EQ(config["overrides"], json({{"allow_tf32", true}, {"dataloader_workers", 0}}));
  EXPECT_EQ(config["steps"], options.steps);
  EXPECT_EQ(config["loss_steps"], 0);
  EXPECT_EQ(config["step_timeout_s"], 0) << "no --step-timeout: no bound";

  const json baseline = json::parse(
      ScriptBenchEnvironment(options, nullptr, "/tmp/x/b.json", true).at("ADVISOR_PROBE_BENCH"));
  EXPECT_TRUE(baseline["overrides"].empty());
  EXPECT_EQ(baseline["loss_steps"], options.loss_steps);
  EXPECT_EQ(baseline["steps"], 0);
}

// A hung candidate waited for the autotest's 10 minutes whatever --step-timeout said.
TEST(ScriptCandidate, EveryRunIsToldTheStepTimeout) {
  ScriptCandidateOptions options;
  options.step_timeout = std::chrono::seconds(7);
  for (const bool losses_only : {false, true}) {
    const json config =
        json::parse(ScriptBenchEnvironment(options, nullptr, "/tmp/x/r.json", losses_only)
                        .at("ADVISOR_PROBE_BENCH"));
    EXPECT_EQ(config["step_timeout_s"], 7);
  }
}

// A run whose probe wrote no losses, or skipped the candidate, read as "…/baseline-losses.json:
// not JSON" from advisor's scratch folder: what happened must come first.
TEST(ScriptCandidate, ARunWithoutLossesSaysWhatHappened) {
  ScriptCandidateOptions options;
  options.command = {"/bin/sh", "-c", "echo 'made no step' >&2"};
  CandidateSpec candidate;
  candidate.id = "tf32-matmul";
  const NumericsVerdict ended =
      ScriptCandidateRunner(options, AbSettings{}).CheckNumerics(candidate);
  EXPECT_EQ(ended.detail.rfind("the baseline run ended (exit status 0) before the probe "
                               "recorded the losses of its first steps",
                               0),
            0u)
      << ended.detail;
  EXPECT_NE(ended.detail.find("made no step"), std::string::npos) << "its stderr's tail";

  // The probe's bench mode writes {"skipped": REASON} where the candidate does not apply.
  options.command = {ADVISOR_TEST_PYTHON, "-c",
                     "import json, os\n"
                     "path = json.loads(os.environ['ADVISOR_PROBE_BENCH'])['result']\n"
                     "json.dump({'skipped': 'no DataLoader to give workers'}, open(path, 'w'))"};
  const NumericsVerdict skipped =
      ScriptCandidateRunner(options, AbSettings{}).CheckNumerics(candidate);
  EXPECT_EQ(skipped.detail, "the baseline run did not apply it: no DataLoader to give workers");
}

// torch.compile's candidate compiled afresh in every round's process (about 30 s each on an H200):
// every run of one autotest, its numerics runs among them, shares one private compile cache,
// removed with the runner.
TEST(ScriptCandidate, EveryRunSharesOnePrivateCompileCache) {
  ASSERT_EQ(std::getenv("TORCHINDUCTOR_CACHE_DIR"), nullptr) << "the test's own environment";
  ScriptCandidateOptions options;
  // The numerics run's probe would write its losses; this one says which cache it was given.
  options.command = {ADVISOR_TEST_PYTHON, "-c",
                     "import json, os\n"
                     "path = json.loads(os.environ['ADVISOR_PROBE_BENCH'])['result']\n"
                     "cache = os.environ.get('TORCHINDUCTOR_CACHE_DIR', 'none')\n"
                     "fx = os.environ.get('TORCHINDUCTOR_FX_GRAPH_CACHE', 'none')\n"
                     "json.dump({'skipped': cache + ' ' + fx}, open(path, 'w'))"};
  CandidateSpec candidate;
  candidate.id = "torch-compile";
  candidate.overrides.compile = true;
  std::string folder;
  {
    ScriptCandidateRunner runner(options, AbSettings{});
    const CandidateCommand benchmark = runner.BenchmarkCommand(&candidate, "/tmp/x/r.json");
    folder = benchmark.env.at("TORCHINDUCTOR_CACHE_DIR");
    EXPECT_NE(folder.find("advisor-compile-cache-"), std::string::npos) << folder;
    EXPECT_TRUE(std::filesystem::is_directory(folder));
    EXPECT_EQ(benchmark.env.at("TORCHINDUCTOR_FX_GRAPH_CACHE"), "1");
    EXPECT_EQ(runner.BenchmarkCommand(nullptr, "/tmp/x/b.json").env.at("TORCHINDUCTOR_CACHE_DIR"),
              folder)
        << "the baseline compiles too where the script does";
    EXPECT_EQ(
        runner.BlocksCommand({}, BlockDesign{}, "/tmp/x/k.json")->env.at("TORCHINDUCTOR_CACHE_DIR"),
        folder);
    EXPECT_EQ(runner.CheckNumerics(candidate).detail,
              "the baseline run did not apply it: " + folder + " 1")
        << "the numerics runs share it";
    EXPECT_NE(runner.SharedByRuns().find(folder), std::string::npos) << runner.SharedByRuns();
  }
  EXPECT_FALSE(std::filesystem::exists(folder)) << "removed with the runner";
}

TEST(ScriptCandidate, TheUsersOwnCompileCacheIsKeptAndSaid) {
  ASSERT_EQ(setenv("TORCHINDUCTOR_CACHE_DIR", "/data/inductor", 1), 0);
  const ScriptCandidateRunner runner(ScriptCandidateOptions{}, AbSettings{});
  unsetenv("TORCHINDUCTOR_CACHE_DIR");
  const CandidateCommand command = runner.BenchmarkCommand(nullptr, "/tmp/x/b.json");
  EXPECT_EQ(command.env.count("TORCHINDUCTOR_CACHE_DIR"), 0u) << "the run inherits the user's";
  EXPECT_EQ(command.env.at("TORCHINDUCTOR_FX_GRAPH_CACHE"), "1");
  EXPECT_NE(
      runner.SharedByRuns().find("your settings kept: TORCHINDUCTOR_CACHE_DIR=/data/inductor"),
      std::string::npos)
      << runner.SharedByRuns();
}

TEST(ScriptCandidate, LossesCompareStepByStepWithinTheClassTolerance) {
  NumericsVerdict same =
      CompareLosses({2.3, 2.1, 1.9}, {2.3002, 2.1001, 1.9}, ToleranceClass::kReordering);
  EXPECT_EQ(same.outcome, NumericsVerdict::Outcome::kWithinTolerance);
  EXPECT_NEAR(same.numerics.max_rel_diff, 0.0002 / 2.3002, 1e-9);
  EXPECT_EQ(same.numerics.tolerance, 1e-3);

  NumericsVerdict moved =
      CompareLosses({2.3, 2.1, 1.9}, {2.3, 2.2, 1.9}, ToleranceClass::kReordering);
  EXPECT_EQ(moved.outcome, NumericsVerdict::Outcome::kExceeded);
  EXPECT_NE(moved.detail.find("loss of step 2"), std::string::npos) << moved.detail;

  EXPECT_EQ(CompareLosses({2.3, 2.1}, {2.3, 2.2}, ToleranceClass::kTf32).outcome,
            NumericsVerdict::Outcome::kWithinTolerance);
  NumericsVerdict diverged = CompareLosses({2.3}, {std::nan("")}, ToleranceClass::kTf32);
  EXPECT_EQ(diverged.outcome, NumericsVerdict::Outcome::kExceeded);
  EXPECT_NE(diverged.detail.find("not finite"), std::string::npos);
  EXPECT_EQ(CompareLosses({2.3, 2.1}, {2.3}, ToleranceClass::kTf32).outcome,
            NumericsVerdict::Outcome::kExceeded);
}

}  // namespace
}  // namespace advisor
