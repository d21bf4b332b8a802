// `advisor bisect -- python ...` end to end, on scripts written as users write them: the answer,
// the report, and how advisor ends (or refuses) a script: one line, a non-zero exit, no report
// and no process left behind.
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/run_advisor.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;
using advisor::testing::CommandResult;
using advisor::testing::ReadFile;
using advisor::testing::RunCommand;
using nlohmann::json;

const std::string kAdvisor = ADVISOR_BINARY;
const std::string kPython = ADVISOR_PYTHON;
const std::string kScripts = ADVISOR_TEST_SCRIPTS_DIR;

fs::path Scratch(const std::string& name) {
  return advisor::testing::FreshFolder(ADVISOR_TEST_SCRATCH_DIR, name);
}

// A word no other process has on its command line: the tests find the script's processes by it.
std::string UniqueTag() {
  std::random_device random;
  return "advisor-test-" + std::to_string(getpid()) + "-" + std::to_string(random());
}

// Processes whose command line contains `tag` (DataLoader workers forked by the script carry its
// command line too).
int ProcessesTagged(const std::string& tag) {
  int count = 0;
  DIR* proc = opendir("/proc");
  while (dirent* entry = readdir(proc)) {
    const std::string pid = entry->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = ReadFile("/proc/" + pid + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(tag) != std::string::npos) ++count;
  }
  closedir(proc);
  return count;
}

std::string Sample(const std::string& tag, const std::string& arguments = "") {
  return kPython + " " + kScripts + "/train_sample.py --tag " + tag + " " + arguments;
}

json Report(const fs::path& out) { return json::parse(ReadFile((out / "report.json").string())); }

// The 1-based number of the first line of `file` holding `text`, at or after the first that holds
// `after`; 0 if none does.
int LineOf(const std::string& file, const std::string& text, const std::string& after = "") {
  std::ifstream source(file);
  std::string line;
  bool past = after.empty();
  for (int number = 1; std::getline(source, line); ++number) {
    past = past || line.find(after) != std::string::npos;
    if (past && line.find(text) != std::string::npos) return number;
  }
  return 0;
}

// `advisor bisect -q --out SCRATCH/report -- python COMMAND`, run in `scratch`.
CommandResult BisectInto(const fs::path& scratch, const std::string& command) {
  return RunCommand(kAdvisor + " bisect -q --out " + (scratch / "report").string() + " -- " +
                        kPython + " " + command,
                    scratch.string());
}

// One line on stderr after advisor's own progress lines, and nothing else advisor printed.
std::string AdvisorError(const CommandResult& run) {
  const std::size_t at = run.err.rfind("advisor: ");
  return at == std::string::npos ? "" : run.err.substr(at);
}

// Python's multiprocessing folders (pymp-*) in `tmp`: a DataLoader worker killed instead of shut
// down leaves its own behind.
std::set<std::string> MultiprocessingFolders(const fs::path& tmp) {
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(tmp)) {
    if (entry.path().filename().string().rfind("pymp-", 0) == 0) folders.insert(entry.path());
  }
  return folders;
}

TEST(ScriptMode, NamesTheSlowInstanceOfAUsersTrainingScript) {
  const fs::path scratch = Scratch("names_the_instance");
  const std::string tag = UniqueTag();
  // Its own TMPDIR: other tests' DataLoaders make and remove pymp-* folders in /tmp meanwhile. In
  // the system's temporary folder, not the build's: advisor's probe socket is made in TMPDIR, and
  // a socket's path may not pass 107 bytes, as one under /work/wt-modern/build-modern/ did.
  const advisor::testing::ScratchDir private_tmp;
  const fs::path tmp = private_tmp.path();
  const CommandResult run =
      RunCommand("TMPDIR=" + tmp.string() + " " + kAdvisor + " bisect -q --out " +
                     (scratch / "report").string() + " -- " + Sample(tag),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("epoch 0:"), std::string::npos)
      << "the script's own output passes through";
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["run"]["mode"], "script");
  EXPECT_EQ(report["run"]["command"][1], kScripts + "/train_sample.py");
  EXPECT_FALSE(report["run"]["python_version"].get<std::string>().empty());
  // From the model's first call, which comes before the probe describes the model (the rules
  // that look at the compute dtype stayed silent without it).
  EXPECT_EQ(report["run"]["dtype"], "float32");
  EXPECT_EQ(report["run"]["batch_size"], 16);
  EXPECT_FALSE(report.contains("compile")) << "nothing compiled (and torch 1.x has no compiler)";
  const json& hotspot = report["hotspot"];
  EXPECT_EQ(hotspot["path"], "encoder.layers.2.ffn") << run.out;
  EXPECT_FALSE(hotspot["op"].get<std::string>().empty());
  ASSERT_TRUE(hotspot["source"].is_object());
  EXPECT_EQ(hotspot["source"]["file"], kScripts + "/train_sample.py");
  EXPECT_NE(hotspot["source"]["text"].get<std::string>().find("self.up"), std::string::npos)
      << "the line of FeedForward.forward that runs the slow matmuls";
  // The training loop's loader: 16-batch epochs, two batches a step (gradient accumulation).
  const json& loader = report["data"]["loader"];
  ASSERT_TRUE(loader.is_object()) << report["data"].dump();
  EXPECT_EQ(loader["epoch_batches"], 16);
  EXPECT_DOUBLE_EQ(loader["batches_per_step"].get<double>(), 2.0);
  EXPECT_EQ(ProcessesTagged(tag), 0) << "the script and its DataLoader workers are gone";
  EXPECT_TRUE(MultiprocessingFolders(tmp).empty()) << "the workers were shut down, not killed";
  for (const char* file : {"report.md", "report.html", "trace.json"}) {
    EXPECT_TRUE(fs::exists(scratch / "report" / file)) << file;
  }
}

TEST(ScriptMode, CheckpointedLayersAndInPlaceOpsOnModuleOutputs) {
  const fs::path scratch = Scratch("checkpointed");
  const std::string tag = UniqueTag();
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q --out " + (scratch / "report").string() + " -- " +
                     Sample(tag, "--checkpoint"),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Report(scratch / "report")["hotspot"]["path"], "encoder.layers.2.ffn");
}

TEST(ScriptMode, LetRunLetsTheScriptFinish) {
  const fs::path scratch = Scratch("let_run");
  const std::string tag = UniqueTag();
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q --let-run --out " + (scratch / "report").string() + " -- " +
                     Sample(tag, "--epochs 8"),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("epoch 7:"), std::string::npos) << "the script trained to its end";
  EXPECT_TRUE(fs::exists(scratch / "report" / "report.json"));
}

// A script that failed after the report was written ended advisor with 0, silently under -q.
TEST(ScriptMode, LetRunEndsWithTheScriptsFailureAndKeepsTheReport) {
  const fs::path scratch = Scratch("let_run_fails");
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q --let-run --out " + (scratch / "report").string() + " -- " +
                     Sample(UniqueTag(), "--epochs 8 --exit-status 3"),
                 scratch.string());
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(AdvisorError(run), "advisor: " + kScripts +
                                   "/train_sample.py ended with exit status 3 after advisor had "
                                   "measured it (--let-run)\n");
  EXPECT_TRUE(fs::exists(scratch / "report" / "report.json"));
}

// A script that dies of torch's out-of-memory error (raised by its module on a CPU, where nothing
// runs out of CUDA memory: oom_train.py) gets a report of it, not only its traceback: where it
// happened, the request, and the fixes; advisor exits 1 with one line saying where the report is.
TEST(ScriptMode, OutOfMemoryGetsAReportOfWhereAndTheFixes) {
  const fs::path scratch = Scratch("out_of_memory");
  const std::string script = kScripts + "/oom_train.py";
  const CommandResult run = BisectInto(scratch, script + " --oom-step 6");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::string line = AdvisorError(run);
  EXPECT_EQ(
      line.rfind("advisor: " + script + " ran out of memory (exit status 1) after 6 steps", 0), 0u)
      << line;
  EXPECT_NE(line.find("in the forward pass of 1 at oom_train.py:"), std::string::npos) << line;
  EXPECT_NE(line.find((scratch / "report" / "report.md").string()), std::string::npos) << line;
  EXPECT_NE(run.err.find("Traceback"), std::string::npos) << "the script's own error stays";

  const json report = Report(scratch / "report");
  EXPECT_EQ(report["run"]["failure"], "out_of_memory");
  const json& oom = report["out_of_memory"];
  EXPECT_EQ(oom["path"], "1") << oom.dump();
  EXPECT_EQ(oom["phase"], "forward");
  EXPECT_EQ(oom["steps_done"], 6);
  EXPECT_DOUBLE_EQ(oom["requested_mb"].get<double>(), 2048.0);
  EXPECT_EQ(oom["source"]["file"], script);
  EXPECT_EQ(oom["source"]["line"], LineOf(script, "raise torch.cuda.OutOfMemoryError"));
  EXPECT_TRUE(oom["allocator"].is_null()) << "a CPU has no caching allocator to read";
  EXPECT_TRUE(report["step"].is_null()) << "no step was measured before it";
  std::map<std::string, json> findings;
  for (const json& finding : report["findings"]) findings[finding["rule"]] = finding;
  ASSERT_EQ(findings.count("oom-bf16-autocast"), 1u) << report["findings"].dump();
  EXPECT_DOUBLE_EQ(findings["oom-bf16-autocast"]["expected_saving_mb"].get<double>(), 1024.0);
  ASSERT_EQ(findings.count("oom-smaller-batch"), 1u);
  EXPECT_NE(findings["oom-smaller-batch"]["message"].get<std::string>().find(
                "micro-batches of 8 instead of 16"),
            std::string::npos);
  ASSERT_EQ(findings.count("oom-activation-checkpointing"), 1u);
  EXPECT_EQ(findings["oom-activation-checkpointing"]["path"], "1");
  const std::string markdown = ReadFile((scratch / "report" / "report.md").string());
  EXPECT_LT(markdown.find("## Out of memory"), markdown.find("## Findings"));
}

// In the backward no module is on Python's stack: the instance is read from the autograd graph the
// error left (the op that still held its saved tensors, in block 1). In the first step, before
// the model is known.
TEST(ScriptMode, OutOfMemoryInTheBackwardNamesTheInstanceWhoseBackwardRan) {
  const fs::path scratch = Scratch("out_of_memory_backward");
  const CommandResult run =
      BisectInto(scratch, kScripts + "/oom_train.py --oom-step 0 --in-backward");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::string line = AdvisorError(run);
  EXPECT_NE(line.find("in the backward pass of 1 at oom_train.py:"), std::string::npos) << line;
  const json report = Report(scratch / "report");
  const json& oom = report["out_of_memory"];
  EXPECT_EQ(oom["path"], "1") << oom.dump();
  EXPECT_EQ(oom["phase"], "backward");
  // What the graph still kept: block 0's fc the batch (16 x 32 floats) and its relu the output,
  // block 1's op its input, alike; Linear 2 and the loss had run, their saved tensors freed.
  const json& live = oom["live"];
  EXPECT_EQ(live["path"], "0") << live.dump();
  EXPECT_EQ(live["tied_with"], json({"0.fc", "1"})) << live.dump();
  EXPECT_DOUBLE_EQ(live["by_category"]["activations"].get<double>(), 3 * 2048 / 1048576.0);
  EXPECT_NE(line.find("; 0 kept the most for backward (0.002 of the 0.006 MB the graphs kept, as "
                      "much as 0.fc and 1 more)"),
            std::string::npos)
      << line;
  std::set<std::string> rules;
  for (const json& finding : report["findings"]) rules.insert(finding["rule"]);
  EXPECT_EQ(rules.count("oom-bf16-autocast"), 1u) << report["findings"].dump();
  EXPECT_EQ(rules.count("oom-smaller-batch"), 1u) << "the batch of the first step's model call";
  // Checkpointing the instance whose backward ran would not lower what is live then: its
  // recompute holds its activations again.
  EXPECT_EQ(rules.count("oom-activation-checkpointing"), 0u);
}

// --autotest after a run that ran out of memory: no baseline fits, so each fix the findings offer
// runs alone. Block 1 runs out where its forward keeps more than 1024 bytes for backward (as a
// device with that much free would): checkpointed, it keeps nothing and fits; deterministic
// algorithms off (a test rule names it) changes no byte and runs out again.
TEST(ScriptMode, OutOfMemoryAutotestRunsEachFixAlone) {
  const fs::path scratch = Scratch("out_of_memory_autotest");
  const std::string script = kScripts + "/oom_train.py";
  const CommandResult run = RunCommand(kAdvisor + " bisect --autotest --rules " + kScripts +
                                           "/rules_oom --out " + (scratch / "report").string() +
                                           " -- " + kPython + " " + script + " --limit-bytes 1024",
                                       scratch.string());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::string line = AdvisorError(run);
  EXPECT_NE(line.find("in the forward pass of 1 at oom_train.py:"), std::string::npos) << line;
  EXPECT_NE(line.find("activation-checkpointing fits ("), std::string::npos) << line;
  EXPECT_NE(run.err.find("[autotest] deterministic-off: out-of-memory: ran out of memory again in "
                         "the forward pass of 1 at oom_train.py:"),
            std::string::npos)
      << run.err;

  const json report = Report(scratch / "report");
  EXPECT_EQ(report["run"]["failure"], "out_of_memory");
  std::map<std::string, json> fixes;
  for (const json& fix : report["fixes"]) fixes[fix["recipe"]] = fix;
  ASSERT_EQ(fixes.count("activation-checkpointing"), 1u) << report["fixes"].dump();
  const json& fits = fixes["activation-checkpointing"];
  EXPECT_EQ(fits["status"], "fits") << fits.dump();
  EXPECT_EQ(fits["measured_in"], "processes");
  EXPECT_GT(fits["candidate"]["samples"].get<int>(), 0) << fits.dump();
  EXPECT_GT(fits["candidate"]["median_ms"].get<double>(), 0.0);
  EXPECT_TRUE(fits["speedup"].is_null()) << "no baseline fits: nothing to compare with";
  EXPECT_TRUE(fits["baseline"].is_null()) << fits.dump();
  EXPECT_TRUE(fits["peak_memory_mb"].is_null()) << "a CPU has no allocator statistics";
  ASSERT_EQ(fixes.count("deterministic-off"), 1u) << report["fixes"].dump();
  const json& again = fixes["deterministic-off"];
  EXPECT_EQ(again["status"], "out-of-memory") << again.dump();
  EXPECT_EQ(again["measured_in"], "processes");
  EXPECT_EQ(again["detail"].get<std::string>().rfind(
                "ran out of memory again in the forward pass of 1 at oom_train.py:", 0),
            0u)
      << again.dump();
  // CUDA only: not run on a CPU, and said so.
  ASSERT_EQ(fixes.count("bf16-autocast"), 1u) << report["fixes"].dump();
  EXPECT_EQ(fixes["bf16-autocast"]["status"], "skipped");
  EXPECT_TRUE(fixes["bf16-autocast"]["measured_in"].is_null());
  for (const json& absent : report["absent"]) EXPECT_NE(absent["section"], "fixes");

  const std::string markdown = ReadFile((scratch / "report" / "report.md").string());
  const std::size_t section = markdown.find("### The fixes, each run alone");
  ASSERT_NE(section, std::string::npos) << markdown;
  EXPECT_LT(section, markdown.find("## Findings"));
  EXPECT_NE(markdown.find("| **`activation-checkpointing`** | **fits** |", section),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| `deterministic-off` | out-of-memory |", section), std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find("## Fixes tried"), std::string::npos) << "shown once, in its section";
}

TEST(ScriptMode, AutotestRelaunchesTheScriptWithTheKnobApplied) {
  const fs::path scratch = Scratch("autotest");
  const std::string tag = UniqueTag();
  // A rule of the test's own names the recipe, and only it is loaded: which built-in rules fire
  // depends on timings, and each recipe they name is one more relaunched run (persistent-workers,
  // which the script's epochs call for, took 9 of the test's 25 s, asserted nothing here).
  // One worker: dataloader-workers tries the counts up to the cores, 2 on CI, leaving out the
  // script's own.
  const CommandResult run =
      RunCommand("ADVISOR_RULES_DIR=" + kScripts + "/rules " + kAdvisor +
                     " bisect -q --autotest --autotest-rounds 1 --out " +
                     (scratch / "report").string() + " -- " + Sample(tag, "--workers 1"),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json fixes = Report(scratch / "report")["fixes"];
  const json* workers = nullptr;
  for (const json& fix : fixes) {
    if (fix["recipe"] == "dataloader-workers") workers = &fix;
  }
  ASSERT_NE(workers, nullptr) << fixes.dump();
  ASSERT_TRUE((*workers)["numerics"].is_object()) << workers->dump();
  EXPECT_LE((*workers)["numerics"]["max_rel_diff"].get<double>(),
            (*workers)["numerics"]["tolerance"].get<double>())
      << "the same batches in the same order, whatever the worker count";
  EXPECT_GT((*workers)["baseline"]["samples"].get<int>(), 0) << workers->dump();
  EXPECT_GT((*workers)["candidate"]["median_ms"].get<double>(), 0.0);
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

// A knob the script's steps read as they run is switched off and on between the steps of one
// run, in blocks, instead of a process per side per round.
TEST(ScriptMode, AutotestSwitchesAKnobBetweenTheStepsOfOneRun) {
  const fs::path scratch = Scratch("autotest_blocks");
  // One intra-op thread: on a busy machine two of them wait for each other at every op, and the
  // script's sub-millisecond step took 40 ms in CI's modern lane.
  const CommandResult run = RunCommand(
      "OMP_NUM_THREADS=1 " + kAdvisor + " bisect -q --autotest --autotest-rounds 3 --rules " +
          kScripts + "/rules_blocks --out " + (scratch / "report").string() + " -- " + kPython +
          " " + kScripts + "/deterministic_train.py --deterministic",
      scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json fixes = Report(scratch / "report")["fixes"];
  const json* off = nullptr;
  for (const json& fix : fixes) {
    if (fix["recipe"] == "deterministic-off") off = &fix;
  }
  ASSERT_NE(off, nullptr) << fixes.dump();
  EXPECT_EQ((*off)["measured_in"], "process") << off->dump();
  // One pair of blocks a cycle, --autotest-rounds cycles. Where a busy machine leaves the interval
  // straddling the noise band, a second run of the script adds three times as many pairs
  // (kWideIntervalFactor in all), and the fix's detail says so (CI's modern lane: 12).
  const int rounds = (*off)["rounds"].get<int>();
  if (rounds != 3) {
    EXPECT_EQ(rounds, 12) << off->dump();
    EXPECT_NE((*off)["detail"].get<std::string>().find(
                  "9 of its 12 pairs of full blocks from a second run of the script"),
              std::string::npos)
        << off->dump();
  }
  EXPECT_EQ((*off)["status"], "verified") << off->dump();
  // The blocks measure the knob's price, the script's 20 ms a step while deterministic algorithms
  // are on, whatever else the machine runs (the step around it is well under a millisecond alone,
  // but a loaded machine stretches both sides alike).
  EXPECT_NEAR(
      (*off)["baseline"]["mean_ms"].get<double>() - (*off)["candidate"]["mean_ms"].get<double>(),
      20.0, 8.0)
      << off->dump();
  EXPECT_GT((*off)["speedup"].get<double>(), 1.0) << off->dump();
}

// The numerics of knobs measured inside the running script are checked inside that run, on the
// model's call from the same weights: no run of the script of their own. A knob that keeps the
// numbers is verified with its difference recorded; a planted one that moves the output by 10 %
// is rejected unmeasured; the two knobs that helped are combined in blocks of a run of their own,
// its numerics checked inside it too; and the check leaves the training as it was (dropout's RNG,
// BatchNorm's statistics): each blocks' run trains step for step as the bisection's run did.
TEST(ScriptMode, AutotestChecksTheNumericsOfSwitchedKnobsInsideTheRun) {
  const fs::path scratch = Scratch("autotest_checked_knobs");
  const fs::path losses = scratch / "losses.txt";
  const CommandResult run =
      RunCommand("ADVISOR_RECIPES_DIR=" + kScripts + "/recipes_checked " + kAdvisor +
                     " bisect -q --autotest --autotest-rounds 3 --rules " + kScripts +
                     "/rules_checked --out " + (scratch / "report").string() + " -- " + kPython +
                     " " + kScripts + "/checked_knobs_train.py --losses " + losses.string(),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  std::map<std::string, json> fixes;
  for (const json& fix : report["fixes"]) fixes[fix["recipe"].get<std::string>()] = fix;
  ASSERT_EQ(fixes.count("deterministic-off-checked"), 1u) << run.err;
  const json& kept = fixes["deterministic-off-checked"];
  EXPECT_EQ(kept["status"], "verified") << kept.dump();
  EXPECT_EQ(kept["measured_in"], "process") << kept.dump();
  ASSERT_TRUE(kept["numerics"].is_object()) << kept.dump();
  EXPECT_EQ(kept["numerics"]["checked_in"], "process");
  EXPECT_EQ(kept["numerics"]["max_rel_diff"], 0.0) << "the same dropout masks on both sides";
  EXPECT_EQ(kept["numerics"]["tolerance"], 1e-3);
  const json& broken = fixes["three-threads"];
  EXPECT_EQ(broken["status"], "rejected") << broken.dump();
  EXPECT_EQ(broken["numerics"]["checked_in"], "process") << broken.dump();
  EXPECT_NEAR(broken["numerics"]["max_rel_diff"].get<double>(), 0.1 / 1.1, 1e-4);
  EXPECT_EQ(broken["rounds"], 0) << "not measured";
  EXPECT_EQ(fixes["cudnn-benchmark-checked"]["status"], "verified")
      << fixes["cudnn-benchmark-checked"].dump();
  // Of 15 ms a step, the first saves 10 and the second 5: the combination is named fastest first.
  const std::string both = "deterministic-off-checked+cudnn-benchmark-checked";
  ASSERT_EQ(fixes.count(both), 1u) << report["fixes"].dump();
  EXPECT_EQ(fixes[both]["measured_in"], "process") << "inside a run: " << fixes[both].dump();
  EXPECT_EQ(fixes[both]["status"], "verified") << fixes[both].dump();
  ASSERT_TRUE(fixes[both]["numerics"].is_object()) << fixes[both].dump();
  EXPECT_EQ(fixes[both]["numerics"]["checked_in"], "process");
  // A run whose pairs of blocks disagreed may have been followed by a second run of blocks.
  const auto second_run = [](const json& fix) {
    return fix["detail"].get<std::string>().find("from a second run") != std::string::npos;
  };
  const std::size_t second_runs =
      (second_run(kept) || second_run(fixes["cudnn-benchmark-checked"]) ? 1 : 0) +
      (second_run(fixes[both]) ? 1 : 0);

  // Each run of the script: "run", then its losses.
  std::vector<std::vector<std::string>> runs;
  std::ifstream lines(losses);
  for (std::string line; std::getline(lines, line);) {
    if (line == "run") {
      runs.emplace_back();
    } else if (!runs.empty()) {
      runs.back().push_back(line);
    }
  }
  ASSERT_EQ(runs.size(), 3u + second_runs)
      << "the bisection's run, the singles' blocks and the combination's: no numerics run";
  for (std::size_t blocks = 1; blocks < runs.size(); ++blocks) {
    const std::size_t common = std::min(runs[0].size(), runs[blocks].size());
    ASSERT_GT(common, 20u);
    for (std::size_t step = 0; step < common; ++step) {
      ASSERT_EQ(runs[blocks][step], runs[0][step])
          << "run " << blocks << ", step " << step << ": the check moved the training";
    }
  }
}

// activation-checkpointing wraps the instances its findings name in torch.utils.checkpoint: on a
// CPU the candidate runs, its recompute timed against the baseline, and keeps the numbers.
TEST(ScriptMode, ActivationCheckpointingOfTheNamedInstanceRunsAndKeepsTheNumerics) {
  const fs::path scratch = Scratch("autotest_checkpoint");
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q --autotest --autotest-rounds 1 --rules " + kScripts +
                     "/rules_checkpoint --out " + (scratch / "report").string() + " -- " + kPython +
                     " " + kScripts + "/deterministic_train.py",
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json fixes = Report(scratch / "report")["fixes"];
  const json* checkpoint = nullptr;
  for (const json& fix : fixes) {
    if (fix["recipe"] == "activation-checkpointing") checkpoint = &fix;
  }
  ASSERT_NE(checkpoint, nullptr) << fixes.dump();
  EXPECT_NE((*checkpoint)["status"], "failed") << checkpoint->dump();
  EXPECT_NE((*checkpoint)["status"], "skipped") << checkpoint->dump();
  ASSERT_TRUE((*checkpoint)["numerics"].is_object()) << checkpoint->dump();
  EXPECT_LE((*checkpoint)["numerics"]["max_rel_diff"].get<double>(),
            (*checkpoint)["numerics"]["tolerance"].get<double>());
  EXPECT_GT((*checkpoint)["candidate"]["median_ms"].get<double>(), 0.0) << "the recompute ran";
  EXPECT_TRUE((*checkpoint)["peak_memory_mb"].is_null()) << "a CPU has no allocator peak";
}

// A rules folder for ADVISOR_RULES_DIR that holds only the built-in rule `file`: every recipe a
// rule names is a relaunch of the script (its numerics, its rounds), and which rules fire besides
// the one a test is about depends on the script and the timings.
fs::path OnlyBuiltInRules(const fs::path& scratch, const std::string& file) {
  const fs::path rules = scratch / "rules";
  fs::create_directories(rules);
  fs::copy_file(kScripts + "/../../rules/" + file, rules / file);
  return rules;
}

TEST(ScriptMode, AFixThatNeedsACodeChangeIsShownAgainstTheUsersLine) {
  const fs::path scratch = Scratch("code_change");
  // Only the gather's rule: the script's deterministic algorithms and its memory also had
  // deterministic-off and keep-freed-memory relaunch it, 8 of the test's 11 s (this VM).
  const fs::path rules = OnlyBuiltInRules(scratch, "gather_backward.lua");
  const CommandResult run = RunCommand("ADVISOR_RULES_DIR=" + rules.string() + " " + kAdvisor +
                                           " bisect -q --autotest --autotest-rounds 1 --out " +
                                           (scratch / "report").string() + " -- " + kPython + " " +
                                           kScripts + "/gather_train.py",
                                       scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["hotspot"]["path"], "select");
  const json* gather = nullptr;
  for (const json& fix : report["fixes"]) {
    if (fix["recipe"] == "gather-to-index") gather = &fix;
  }
  ASSERT_NE(gather, nullptr) << report["fixes"].dump();
  EXPECT_EQ((*gather)["status"], "skipped") << "a script's code is never edited";
  EXPECT_NE((*gather)["detail"].get<std::string>().find(kScripts + "/gather_train.py:"),
            std::string::npos);
  EXPECT_NE((*gather)["suggested_change"].get<std::string>().find(
                "+x = x[torch.arange(x.shape[0], device=x.device).unsqueeze(-1), keep_indices]"),
            std::string::npos)
      << (*gather)["suggested_change"];
}

TEST(ScriptMode, AFindingAwayFromTheHotSpotGetsItsLineFromTheRunningScript) {
  const fs::path scratch = Scratch("finding_lines");
  const CommandResult run = BisectInto(scratch, kScripts + "/attention_train.py");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["hotspot"]["path"].get<std::string>().rfind("blocks.1.ffn", 0), 0u)
      << report["hotspot"].dump();
  std::vector<json> attention;
  for (const json& finding : report["findings"]) {
    if (finding["rule"] == "materialised-attention") attention.push_back(finding);
  }
  ASSERT_EQ(attention.size(), 1u) << "blocks.0 holds the same attention: " << report["findings"];
  EXPECT_EQ(attention[0]["path"], "blocks.1.attn");
  ASSERT_TRUE(attention[0]["source"].is_object()) << attention[0].dump();
  EXPECT_EQ(attention[0]["source"]["file"], kScripts + "/attention_train.py");
  EXPECT_NE(attention[0]["source"]["text"].get<std::string>().find("# SOFTMAX_LINE"),
            std::string::npos);
  // The change to paste, read from the function around that line: its scale kept.
  const json& change = attention[0]["change"];
  ASSERT_TRUE(change.is_object()) << attention[0].dump();
  EXPECT_EQ(change["after"], json::array({"return torch.nn.functional.scaled_dot_product_attention("
                                          "q, k, v, scale=self.scale)"}))
      << change.dump();
  EXPECT_EQ(change["first_line"], attention[0]["source"]["line"].get<int>() - 1);
}

// The report's finding of `rule`, or nullptr.
const json* FindingOf(const json& report, const std::string& rule) {
  for (const json& finding : report["findings"]) {
    if (finding["rule"] == rule) return &finding;
  }
  return nullptr;
}

// The seed's input pipeline (tests/script_runs/pipeline_train.py): a dilation of a float mask, the
// slow way, before a crop.
std::string Pipeline(const std::string& tag, const std::string& arguments) {
  return kPython + " " + kScripts + "/pipeline_train.py --tag " + tag + " " + arguments;
}

// The heaviest piece of `kind` in data.stage.
const json* Heaviest(const json& stage, const std::string& kind) {
  const json* heaviest = nullptr;
  for (const json& piece : stage["pieces"]) {
    if (piece["kind"] == kind && (heaviest == nullptr || piece["ms"] > (*heaviest)["ms"])) {
      heaviest = &piece;
    }
  }
  return heaviest;
}

// What the report must say of the pipeline whoever prepared its batches: the dilation is the
// heaviest transform, on the 256x256 mask held in float; its convolution the heaviest line.
void ExpectTheDilationNamed(const json& stage, const std::string& run_output) {
  ASSERT_TRUE(stage.is_object()) << run_output;
  EXPECT_GE(stage["batches"].get<int>(), 1);
  EXPECT_GT(stage["batch_ms"].get<double>(), 0.0);
  EXPECT_GE(stage["cores"].get<int>(), 1);
  EXPECT_EQ(stage["output_shape"], json::array({4, 224, 224}));
  const std::string script = kScripts + "/pipeline_train.py";
  const json* transform = Heaviest(stage, "transform");
  ASSERT_NE(transform, nullptr) << stage.dump();
  EXPECT_EQ((*transform)["name"], "RandomDilation") << stage.dump();
  EXPECT_GE((*transform)["share"].get<double>(), 0.25) << stage.dump();
  EXPECT_LE((*transform)["share"].get<double>(), 1.0);
  EXPECT_EQ((*transform)["input_shape"], json::array({1, 256, 256})) << "the mask, before the crop";
  EXPECT_EQ((*transform)["dtype"], "float32");
  EXPECT_EQ((*transform)["input_is_binary"], true);
  EXPECT_EQ((*transform)["source"]["file"], script);
  const json* line = Heaviest(stage, "line");
  ASSERT_NE(line, nullptr) << stage.dump();
  EXPECT_EQ((*line)["name"], "torch.conv2d") << stage.dump();
  EXPECT_EQ((*line)["source"]["file"], script);
  EXPECT_EQ((*line)["source"]["line"], LineOf(script, "grown = F.conv2d("));
  EXPECT_GT((*line)["share"].get<double>(), 0.0);
}

TEST(ScriptMode, NamesTheSlowTransformFromTheDataLoadersWorkerProcesses) {
  const fs::path scratch = Scratch("input_stage_workers");
  const std::string tag = UniqueTag();
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q --out " + (scratch / "report").string() + " -- " +
                     Pipeline(tag, "--workers 2"),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& data = report["data"];
  EXPECT_EQ(data["workers"], 2);
  ExpectTheDilationNamed(data["stage"], run.err);
  // The advice points at the user's transform: a mask dilated in float32.
  const json* narrow = FindingOf(report, "input-narrow-dtype");
  ASSERT_NE(narrow, nullptr) << report["findings"].dump();
  ASSERT_TRUE((*narrow)["source"].is_object()) << narrow->dump();
  EXPECT_EQ((*narrow)["source"]["file"], kScripts + "/pipeline_train.py");
  ASSERT_TRUE(data["stage"]["worker_busy_share"].is_number());
  EXPECT_GT(data["stage"]["worker_busy_share"].get<double>(), 0.0);
  EXPECT_LE(data["stage"]["worker_busy_share"].get<double>(), 1.0);
  // Epochs of 512 batches: none starts inside a window, what a start costs is not measured, and
  // persistent-workers says nothing.
  const json& loader = data["loader"];
  ASSERT_TRUE(loader.is_object()) << data.dump();
  EXPECT_EQ(loader["workers"], 2);
  EXPECT_EQ(loader["epoch_batches"], 512);
  EXPECT_EQ(loader["epochs_seen"], 0);
  EXPECT_TRUE(loader["epoch_start_ms"].is_null());
  EXPECT_EQ(FindingOf(report, "persistent-workers"), nullptr);
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

// A script that keeps PYTHONPATH's entries, the probe's folder among them, out of sys.path and
// spawns its DataLoader's workers (tests/script_runs/spawn_train.py): a spawned worker takes its
// parent's sys.path and runs the script's top level again before it unpickles the probe's
// worker_init_fn, and failed with "No module named 'advisor_probe'", blamed on the script. The
// workers spawned by the loader's context, by the start method, and with PYTHONPATH also taken
// out of the environment they inherit.
struct Spawning {
  std::string name;
  std::string arguments;  // spawn_train.py's

  friend void PrintTo(const Spawning& spawning, std::ostream* out) { *out << spawning.name; }
};

class SpawnedWorkers : public ::testing::TestWithParam<Spawning> {};

TEST_P(SpawnedWorkers, GetTheProbeWhereTheScriptDroppedItsFolderFromSysPath) {
  const fs::path scratch = Scratch("spawned_workers_" + GetParam().name);
  const std::string tag = UniqueTag();
  const CommandResult run =
      BisectInto(scratch, kScripts + "/spawn_train.py --tag " + tag + " " + GetParam().arguments);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("advisor_probe"), std::string::npos) << run.err;
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["hotspot"]["path"], "blocks.1") << report["hotspot"].dump();
  const json& data = report["data"];
  EXPECT_EQ(data["workers"], 2);
  ASSERT_TRUE(data["stage"].is_object()) << data.dump();
  EXPECT_GE(data["stage"]["batches"].get<int>(), 1) << "measured in the spawned workers";
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

INSTANTIATE_TEST_SUITE_P(Ways, SpawnedWorkers,
                         ::testing::Values(Spawning{"by_the_loaders_context", ""},
                                           Spawning{"by_the_start_method", "--start-method"},
                                           Spawning{"without_pythonpath", "--clear-environment"}),
                         [](const ::testing::TestParamInfo<Spawning>& info) {
                           return info.param.name;
                         });

TEST(ScriptMode, CropFirstIsSuggestedAtTheTransformsLineNotApplied) {
  const fs::path scratch = Scratch("crop_first");
  const std::string tag = UniqueTag();
  // Only the crop's rule: where the workers read busy, dataloader-workers also relaunched the
  // script, which the test asserts nothing of.
  const fs::path rules = OnlyBuiltInRules(scratch, "input_crop_first.lua");
  const CommandResult run =
      RunCommand("ADVISOR_RULES_DIR=" + rules.string() + " " + kAdvisor +
                     " bisect -q --autotest --autotest-rounds 1 --out " +
                     (scratch / "report").string() + " -- " + Pipeline(tag, "--workers 2"),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json* crop = nullptr;
  for (const json& fix : report["fixes"]) {
    if (fix["recipe"] == "crop-first") crop = &fix;
  }
  ASSERT_NE(crop, nullptr) << report["fixes"].dump();
  EXPECT_EQ((*crop)["status"], "skipped") << "a script's code is never edited";
  const std::string detail = (*crop)["detail"];
  EXPECT_NE(detail.find("a suggestion, not verified: crop before the transform at " + kScripts +
                        "/pipeline_train.py:"),
            std::string::npos)
      << detail;
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

// A pipeline class of the script's own that keeps its steps in `self.steps`
// (tests/script_runs/blur_crop_train.py): its blur, two convolutions before a crop, was timed as
// one with the crop, at the crop's output size, and crop-first said nothing though the input
// stage named both blur lines.
TEST(ScriptMode, CropFirstFindsTheBlurInsideAHandWrittenPipeline) {
  const fs::path scratch = Scratch("hand_written_pipeline");
  const std::string tag = UniqueTag();
  const std::string script = kScripts + "/blur_crop_train.py";
  const CommandResult run = BisectInto(scratch, script + " --workers 2 --tag " + tag);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json* transform = Heaviest(report["data"]["stage"], "transform");
  ASSERT_NE(transform, nullptr) << report["data"].dump();
  EXPECT_EQ((*transform)["name"], "GaussianBlur") << report["data"]["stage"].dump();
  EXPECT_EQ((*transform)["input_shape"], json::array({3, 256, 256}));
  const json* crop_first = FindingOf(report, "input-crop-first");
  ASSERT_NE(crop_first, nullptr) << report["findings"].dump();
  ASSERT_TRUE((*crop_first)["source"].is_object()) << crop_first->dump();
  EXPECT_EQ((*crop_first)["source"]["file"], script);
  EXPECT_EQ((*crop_first)["source"]["line"], LineOf(script, "def __call__", "class GaussianBlur"))
      << "the blur, not the pipeline's loop: " << crop_first->dump();
  EXPECT_NE((*crop_first)["message"].get<std::string>().find("160x160"), std::string::npos)
      << crop_first->dump();
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

TEST(ScriptMode, NamesTheSlowTransformOnTheMainProcessWithWorkers0) {
  const fs::path scratch = Scratch("input_stage_main");
  const std::string tag = UniqueTag();
  // One intra-op thread, as in a DataLoader worker: on 16 threads the convolution ran below the
  // single-threaded torch.rand (5.9 against 9.9 ms a batch, PyTorch 2.11), and the heaviest line
  // would be the machine's, not the dilation's.
  const CommandResult run =
      RunCommand("OMP_NUM_THREADS=1 " + kAdvisor + " bisect -q --out " +
                     (scratch / "report").string() + " -- " + Pipeline(tag, "--workers 0"),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json data = Report(scratch / "report")["data"];
  EXPECT_EQ(data["workers"], 0);
  ExpectTheDilationNamed(data["stage"], run.err);
  EXPECT_TRUE(data["stage"]["worker_busy_share"].is_null());
}

// A validation after every optimizer step (tests/script_runs/validation_train.py): eight no-grad
// batches of 512 rows through the model that trains on 64 rows. They are no step's forward.
// The calling conventions and trainers people use (issue #26): a model called with keyword
// arguments only, and the same model trained by transformers' Trainer, Lightning and an
// accelerate loop. Each names the planted slow block's MLP with a line of the user's code. The
// trainers run where the Python that runs the scripts has them (the modern-torch lane,
// scripts/modern-lane.sh); elsewhere they skip, saying which package is missing.

// Whether `kPython` can import `package`.
bool PythonHas(const std::string& package) {
  // Its output goes to a scratch folder, not to the folder the tests run in.
  return RunCommand(kPython + " -c 'import " + package + "'",
                    Scratch("python-has-" + package).string())
             .exit_code == 0;
}

// Bisects `script` (in this folder, with tiny_lm's model) and checks what every framework must
// give: the batch and dtype read from the model's first training call, the slow block's MLP as
// the hot spot, its line in tiny_lm.py, and nothing of the script left running.
void ExpectTheSlowBlockOf(const std::string& script, const std::string& root) {
  const fs::path scratch = Scratch(script);
  const std::string tag = UniqueTag();
  const CommandResult run = BisectInto(scratch, kScripts + "/" + script + ".py --tag " + tag);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["run"]["dtype"], "float32") << "token ids are int64, the weights float32";
  EXPECT_EQ(report["run"]["batch_size"], 6);
  const std::string hot =
      report["hotspot"]["path"].is_string() ? report["hotspot"]["path"].get<std::string>() : "";
  EXPECT_EQ(hot.rfind(root + "blocks.1.mlp", 0), 0u) << report["hotspot"].dump();
  ASSERT_TRUE(report["hotspot"]["source"].is_object()) << report["hotspot"].dump();
  EXPECT_EQ(report["hotspot"]["source"]["file"], kScripts + "/tiny_lm.py");
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

TEST(ScriptFrameworks, AModelCalledWithKeywordArgumentsOnly) {
  ExpectTheSlowBlockOf("keyword_train", "");
}

TEST(ScriptFrameworks, TransformersTrainer) {
  if (!PythonHas("transformers")) GTEST_SKIP() << kPython << " has no transformers";
  ExpectTheSlowBlockOf("hf_trainer_train", "");
}

TEST(ScriptFrameworks, LightningTrainerWithItsClosureStep) {
  if (!PythonHas("lightning") && !PythonHas("pytorch_lightning")) {
    GTEST_SKIP() << kPython << " has neither lightning nor pytorch_lightning";
  }
  ExpectTheSlowBlockOf("lightning_train", "");
}

// Lightning's docs' other way: training_step calls the blocks and the head itself, and nothing
// calls the LightningModule. The instances are named through it, as with its forward called.
TEST(ScriptFrameworks, LightningTrainingStepThatCallsTheChildren) {
  if (!PythonHas("lightning") && !PythonHas("pytorch_lightning")) {
    GTEST_SKIP() << kPython << " has neither lightning nor pytorch_lightning";
  }
  ExpectTheSlowBlockOf("lightning_step_train", "");
}

// Fabric holds the model in a _FabricModule as `_forward_module`: the instances keep the user's
// names, and the optimizer Fabric wraps (a FabricAdamW) is the step's optimizer.
TEST(ScriptFrameworks, LightningFabricLoop) {
  if (!PythonHas("lightning") && !PythonHas("lightning_fabric")) {
    GTEST_SKIP() << kPython << " has neither lightning nor lightning_fabric";
  }
  ExpectTheSlowBlockOf("fabric_train", "");
}

TEST(ScriptFrameworks, AccelerateLoop) {
  if (!PythonHas("accelerate")) GTEST_SKIP() << kPython << " has no accelerate";
  ExpectTheSlowBlockOf("accelerate_train", "");
}

// torch.compile's own report (issue #29): what dynamo did in the user's process, read by the
// probe, with the user's file and line. Where kPython's torch has no compiler (Debian's 1.13) the
// scripts cannot run, and the report has no compile section (ScriptMode's sample says so).
bool TorchCompiles() {
  return RunCommand(kPython + " -c 'import torch; torch.compile'",
                    Scratch("python-has-torch-compile").string())
             .exit_code == 0;
}

// The findings of `rule` in `report`.
std::vector<json> FindingsOf(const json& report, const std::string& rule) {
  std::vector<json> found;
  for (const json& finding : report["findings"]) {
    if (finding["rule"] == rule) found.push_back(finding);
  }
  return found;
}

TEST(ScriptCompile, AGraphBreakAtABlocksItemIsNamedAtItsLine) {
  if (!TorchCompiles()) GTEST_SKIP() << kPython << "'s torch has no torch.compile";
  const fs::path scratch = Scratch("compiled_item");
  const std::string tag = UniqueTag();
  const CommandResult run = BisectInto(scratch, kScripts + "/compiled_item_train.py --tag " + tag);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  ASSERT_TRUE(report.contains("compile")) << report.dump();
  const json& compile = report["compile"];
  const std::string script = kScripts + "/compiled_item_train.py";
  const int line = LineOf(script, ".item()", "def forward");
  ASSERT_EQ(compile["graph_breaks"].size(), 1u) << compile.dump();
  EXPECT_EQ(compile["graph_breaks"][0]["file"], script);
  EXPECT_EQ(compile["graph_breaks"][0]["line"], line);
  EXPECT_NE(compile["graph_breaks"][0]["reason"].get<std::string>().find("Tensor.item()"),
            std::string::npos);
  EXPECT_GE(compile["graphs"].get<int>(), 2) << "the break splits the model's graph";
  EXPECT_GT(compile["compile_s"].get<double>(), 0);
  const std::vector<json> breaks = FindingsOf(report, "compile-graph-break");
  ASSERT_EQ(breaks.size(), 1u) << report["findings"].dump();
  EXPECT_EQ(breaks[0]["source"]["file"], script);
  EXPECT_EQ(breaks[0]["source"]["line"], line);
  EXPECT_NE(breaks[0]["source"]["text"].get<std::string>().find(".item()"), std::string::npos)
      << "the line's code, as report.md shows it";
  EXPECT_NE(breaks[0]["message"].get<std::string>().find("capture_scalar_outputs"),
            std::string::npos);
  EXPECT_TRUE(FindingsOf(report, "compile-shape-recompiles").empty()) << "its batch never changes";
  EXPECT_NE(ReadFile((scratch / "report" / "report.md").string()).find("## torch.compile"),
            std::string::npos);
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

TEST(ScriptCompile, AShortLastBatchRecompilesOnTheSizeGuard) {
  if (!TorchCompiles()) GTEST_SKIP() << kPython << "'s torch has no torch.compile";
  const fs::path scratch = Scratch("short_batch");
  const std::string tag = UniqueTag();
  const CommandResult run = BisectInto(scratch, kScripts + "/short_batch_train.py --tag " + tag);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  ASSERT_TRUE(report.contains("compile")) << report.dump();
  const json& compile = report["compile"];
  const std::string script = kScripts + "/short_batch_train.py";
  EXPECT_TRUE(compile["graph_breaks"].empty()) << compile.dump();
  ASSERT_FALSE(compile["recompiles"].empty()) << compile.dump();
  const json& recompile = compile["recompiles"][0];
  EXPECT_EQ(recompile["function"], "forward");
  EXPECT_EQ(recompile["file"], script);
  EXPECT_EQ(recompile["line"], LineOf(script, "def forward"));
  EXPECT_NE(recompile["guard"].get<std::string>().find("size mismatch at index 0"),
            std::string::npos)
      << recompile.dump();
  const std::vector<json> recompiles = FindingsOf(report, "compile-shape-recompiles");
  ASSERT_EQ(recompiles.size(), 1u) << report["findings"].dump();
  EXPECT_NE(recompiles[0]["message"].get<std::string>().find("mark_dynamic"), std::string::npos);
  EXPECT_EQ(recompiles[0]["source"]["file"], script);
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

// Issue #28: torch.compile alone is switched between the steps of one run, in blocks, as TF32 is:
// its numerics checked inside that run (with eager's random numbers), its compile in the first
// compiled block's settle steps, reported apart as the fix's warm-up. On the CPU, through a copy
// of the torch-compile recipe for the CPU (recipes_compiled/) and a model inductor compiles
// without a C++ kernel.
TEST(ScriptCompile, TheAutotestMeasuresTorchCompileInBlocksOfOneRun) {
  if (!TorchCompiles()) GTEST_SKIP() << kPython << "'s torch has no torch.compile";
  const fs::path scratch = Scratch("compile_blocks");
  const advisor::testing::ScratchDir private_tmp;  // TMPDIR: short enough for the probe's socket
  const CommandResult run = RunCommand(
      "TMPDIR=" + private_tmp.path() + " ADVISOR_RECIPES_DIR=" + kScripts + "/recipes_compiled " +
          kAdvisor + " bisect -q --autotest --autotest-rounds 3 --rules " + kScripts +
          "/rules_compiled --out " + (scratch / "report").string() + " -- " + kPython + " " +
          kScripts + "/compile_cache_train.py",
      scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  json fix;
  for (const json& tried : report["fixes"]) {
    if (tried["recipe"] == "torch-compile-cpu") fix = tried;
  }
  ASSERT_TRUE(fix.is_object()) << report["fixes"].dump();
  EXPECT_EQ(fix["measured_in"], "process") << fix.dump();
  ASSERT_TRUE(fix["numerics"].is_object()) << fix.dump();
  EXPECT_EQ(fix["numerics"]["checked_in"], "process") << "checked inside the run";
  EXPECT_LE(fix["numerics"]["max_rel_diff"].get<double>(),
            fix["numerics"]["tolerance"].get<double>())
      << fix.dump();
  ASSERT_TRUE(fix["warmup_s"].is_number()) << "the first compiled block's settle: " << fix.dump();
  EXPECT_GT(fix["warmup_s"].get<double>(), 0.0) << fix.dump();
  EXPECT_TRUE(fix["warmup_rounds"].empty()) << "no rounds of processes: " << fix.dump();
  // Three pairs of blocks, or twelve where a second run widened a straddling interval.
  const int rounds = fix["rounds"].get<int>();
  EXPECT_TRUE(rounds == 3 || rounds == 12) << fix.dump();
  ASSERT_TRUE(fix["speedup_ci_low"].is_number()) << fix.dump();
  EXPECT_LE(fix["speedup_ci_low"].get<double>(), fix["speedup"].get<double>()) << fix.dump();
  EXPECT_GE(fix["speedup_ci_high"].get<double>(), fix["speedup"].get<double>()) << fix.dump();
}

// Issue #29: torch.compile's costlier forms as candidates. Regional compilation (each block of
// the model's ModuleList compiled alone, through a CPU copy of its recipe) is measured in a run
// of blocks of its own, its numerics checked inside it and its compile reported apart; with no
// plain torch.compile among the candidates it says it ran without that verdict. max-autotune and
// reduce-overhead, the shipped recipes, are CUDA's: on the CPU they are skipped with the reason
// (max-autotune's C++ GEMM templates took 110 s to compile this model's three products on the
// 2-core VM, regional's plain compile 27 s). On a torch without torch.compile (Debian's 1.13)
// every one is skipped, the regional copy for the torch it needs.
TEST(ScriptCompile, TheAutotestTriesTheCompileModesWhereTheyApply) {
  const fs::path scratch = Scratch("compile_modes");
  const fs::path recipes = scratch / "recipes";
  fs::create_directories(recipes);
  for (const std::string id : {"torch-compile-max-autotune", "torch-compile-reduce-overhead"}) {
    fs::copy_file(kScripts + "/../../recipes/" + id + ".json", recipes / (id + ".json"));
  }
  fs::copy_file(kScripts + "/recipes_compiled/torch-compile-regional-cpu.json",
                recipes / "torch-compile-regional-cpu.json");
  const advisor::testing::ScratchDir private_tmp;  // TMPDIR: short enough for the probe's socket
  const CommandResult run =
      RunCommand("TMPDIR=" + private_tmp.path() + " ADVISOR_RECIPES_DIR=" + recipes.string() + " " +
                     kAdvisor + " bisect -q --autotest --autotest-rounds 2 --rules " + kScripts +
                     "/rules_compile_modes --out " + (scratch / "report").string() + " -- " +
                     kPython + " " + kScripts + "/compile_modes_train.py",
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  std::map<std::string, json> fixes;
  for (const json& tried : report["fixes"]) fixes[tried["recipe"]] = tried;
  ASSERT_EQ(fixes.size(), 3u) << report["fixes"].dump();
  const json& autotune = fixes["torch-compile-max-autotune"];
  EXPECT_EQ(autotune["status"], "skipped");
  EXPECT_EQ(autotune["detail"], "not applicable: applies to cuda, this run is on cpu");
  const json& overhead = fixes["torch-compile-reduce-overhead"];
  EXPECT_EQ(overhead["status"], "skipped");
  EXPECT_NE(overhead["detail"].get<std::string>().find(
                "CUDA graphs replay a GPU's kernel launches, and a CPU step launches none"),
            std::string::npos)
      << overhead.dump();
  const json& regional = fixes["torch-compile-regional-cpu"];
  if (!TorchCompiles()) {
    EXPECT_EQ(regional["status"], "skipped");
    EXPECT_EQ(regional["detail"].get<std::string>().rfind(
                  "not applicable: needs torch 2.0 or newer, this is 1.", 0),
              0u)
        << regional.dump();
    return;
  }
  const std::string status = regional["status"];
  EXPECT_TRUE(status == "verified" || status == "no-change" || status == "rejected")
      << "measured: " << regional.dump();
  EXPECT_EQ(regional["measured_in"], "process") << "in blocks of one run: " << regional.dump();
  ASSERT_TRUE(regional["numerics"].is_object()) << regional.dump();
  EXPECT_EQ(regional["numerics"]["checked_in"], "process") << "checked inside the run";
  ASSERT_TRUE(regional["warmup_s"].is_number()) << "its compile, apart: " << regional.dump();
  EXPECT_GT(regional["warmup_s"].get<double>(), 0.0);
  EXPECT_NE(
      regional["detail"].get<std::string>().find("tried without plain torch.compile's verdict"),
      std::string::npos)
      << regional.dump();
}

// Issue #29: a model compiled whole by inductor, whose kernels the probe's tables name: the
// baseline window's compiled work (on a CPU, the graphs' matrix multiplies) goes to the four
// Linear instances, forward and backward, and data_quality says how much was attributed.
TEST(ScriptCompile, AnInductorCompiledModelsKernelsGoToTheirInstances) {
  if (!TorchCompiles()) GTEST_SKIP() << kPython << "'s torch has no torch.compile";
  const fs::path scratch = Scratch("inductor_mlp");
  const CommandResult run = BisectInto(scratch, kScripts + "/inductor_mlp_train.py");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  ASSERT_TRUE(report.contains("compiled_kernels")) << report["data_quality"].dump();
  const json& compiled = report["compiled_kernels"];
  EXPECT_EQ(compiled["work"], "host_ops");
  EXPECT_GT(compiled["calls"].get<int>(), 0);
  EXPECT_EQ(compiled["unnamed_kernels"], 0) << compiled.dump();
  EXPECT_EQ(compiled["nodeless_kernels"], 0) << compiled.dump();
  // All but the backward's fused addmm, a third of whose nodes no instance holds.
  EXPECT_GT(compiled["attributed_share"].get<double>(), 0.8) << compiled.dump();
  std::set<std::string> paths;
  for (const json& instance : compiled["instances"]) {
    paths.insert(instance["path"].get<std::string>());
    EXPECT_GT(instance["forward_ms"].get<double>(), 0) << instance.dump();
    EXPECT_GT(instance["backward_ms"].get<double>(), 0) << instance.dump();
  }
  EXPECT_EQ(paths, (std::set<std::string>{"blocks.0.fc1", "blocks.0.fc2", "blocks.1.fc1",
                                          "blocks.1.fc2"}));
  const json& quality = report["data_quality"];
  EXPECT_TRUE(std::any_of(quality.begin(), quality.end(), [](const json& line) {
    return line.get<std::string>().find("from inductor's kernel provenance") != std::string::npos;
  })) << quality.dump();
}

// Issue #29: the bisection of a model compiled whole by inductor descends by its kernels'
// provenance, which covers nearly all its compiled time here: its levels record no window, so the
// compilation measured is the script's own (no region compiled, no compile.regional). With
// --head 16384 a Linear after the blocks holds most of the compiled matrix multiplies: the first
// level chooses it, and the hot spot is named by its costliest extern ATen call. One intra-op
// thread: on a loaded VM each small matrix multiply waited for the thread pool (blocks.0.fc1's
// 32 ms a step beside a 4096-wide head's 30 ms), and the blocks' twelve calls held 47 % to the
// 16384-wide head's 53 %.
TEST(ScriptCompile, AnInductorCompiledModelIsBisectedByProvenanceToItsHotLinear) {
  if (!TorchCompiles()) GTEST_SKIP() << kPython << "'s torch has no torch.compile";
  const fs::path scratch = Scratch("inductor_mlp_head");
  const CommandResult run =
      BisectInto(scratch, kScripts + "/inductor_mlp_train.py --head 16384 --threads 1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& levels = report["bisection"]["levels"];
  ASSERT_FALSE(levels.empty()) << report.dump();
  for (const json& level : levels) {
    EXPECT_EQ(level["measured_by"], "provenance") << level.dump();
    EXPECT_TRUE(level["window_step_ms"].is_null()) << "no window: " << level.dump();
  }
  EXPECT_EQ(levels[0]["chosen"], "head") << levels[0].dump();
  ASSERT_TRUE(report["hotspot"].is_object()) << report["bisection"].dump();
  EXPECT_EQ(report["hotspot"]["path"], "head");
  const std::string op = report["hotspot"]["op"];
  EXPECT_TRUE(op == "aten::mm" || op == "aten::addmm") << report["hotspot"].dump();
  EXPECT_GT(report["hotspot"]["module_share"].get<double>(),
            report["hotspot"]["share"].get<double>())
      << "its forward's and backward's calls together";
  ASSERT_TRUE(report.contains("compile")) << report.dump();
  EXPECT_FALSE(report["compile"].contains("regional")) << report["compile"].dump();
  const json& quality = report["data_quality"];
  EXPECT_TRUE(std::any_of(quality.begin(), quality.end(), [](const json& line) {
    return line.get<std::string>().find("were measured by provenance") != std::string::npos;
  })) << quality.dump();
}

// Issue #29: inside a model compiled whole, each level's window compiles the instances beside the
// path on their own (regional compilation, advisor_probe/regional.py), so the markers sit between
// them and the bisection names the instance the eager script's does: the middle block's token
// mixer, in the backward. aot_eager: the graphs are dynamo's and AOTAutograd's as inductor's,
// without inductor's C++ compile (25 s for the compiled run on the CI VM, 14 s for the eager).
TEST(ScriptCompile, ACompiledModelIsBisectedToTheEagerScriptsInstance) {
  if (!TorchCompiles()) GTEST_SKIP() << kPython << "'s torch has no torch.compile";
  const std::string script = kScripts + "/compiled_blocks_train.py";
  const fs::path eager_scratch = Scratch("compiled_blocks_eager");
  const CommandResult eager_run = BisectInto(eager_scratch, script + " --eager");
  ASSERT_EQ(eager_run.exit_code, 0) << eager_run.err;
  const json eager = Report(eager_scratch / "report");
  EXPECT_EQ(eager["hotspot"]["path"], "blocks.1.mixer") << eager["hotspot"].dump();
  EXPECT_FALSE(eager.contains("compile"));

  const fs::path scratch = Scratch("compiled_blocks");
  const CommandResult run = BisectInto(scratch, script);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["hotspot"]["path"], eager["hotspot"]["path"]) << report["hotspot"].dump();
  EXPECT_EQ(report["hotspot"]["phase"], eager["hotspot"]["phase"]);
  EXPECT_EQ(report["hotspot"]["op"], "CompiledFunctionBackward") << "its region's backward";
  // The source window runs the hot spot eagerly under the same regions: its line is read.
  const int mixing = LineOf(script, "return (x @ x.transpose(1, 2))");
  const json& lines = report["hotspot"]["lines"];
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const json& line) {
    return line["line"] == mixing;
  })) << lines.dump();
  for (const json& line : report["data_quality"]) {
    EXPECT_EQ(line.get<std::string>().find("measured as one leaf"), std::string::npos) << line;
  }
  ASSERT_TRUE(report.contains("compile")) << report.dump();
  const json& compile = report["compile"];
  ASSERT_TRUE(compile.contains("regional")) << compile.dump();
  const json& regional = compile["regional"];
  const std::vector<std::string> levels = regional["levels"];
  for (const std::string level : {"", "blocks.1", "blocks.1.mixer"}) {
    EXPECT_NE(std::find(levels.begin(), levels.end(), level), levels.end())
        << "each level's window, and the hot spot's source window: " << regional.dump();
  }
  EXPECT_GT(regional["compilations"].get<int>(), 0);
  EXPECT_GT(regional["compile_s"].get<double>(), 0);
  EXPECT_EQ(regional["in_measured_steps"], 0) << "every region compiled in a warm-up step";
  EXPECT_TRUE(regional["eager"].empty()) << regional.dump();
  // aot_eager runs no inductor: no kernel provenance, and the levels say how they were measured.
  for (const json& level : report["bisection"]["levels"]) {
    EXPECT_EQ(level["measured_by"], "regional_compilation") << level.dump();
  }
  const json& quality = report["data_quality"];
  EXPECT_TRUE(std::any_of(quality.begin(), quality.end(), [](const json& line) {
    const std::string text = line;
    return text.find("measured by regional compilation") != std::string::npos &&
           text.find("no kernel provenance was recorded") != std::string::npos;
  })) << quality.dump();
  EXPECT_EQ(compile["graphs"], 1) << "the script's own compilation, the regions' apart";
  EXPECT_NE(ReadFile((scratch / "report" / "report.md").string())
                .find("advisor measured inside the compiled model with regional compilation"),
            std::string::npos);
}

// torch.compile with a knob that needs a process (the optimizer's foreach form, built once)
// still runs in rounds of processes, and each compiled afresh. Every run of one autotest shares a
// private compile cache, so that only the first compiles: on the CPU, through a test recipe of
// the two (recipes_compiled/) and a model inductor compiles without a C++ kernel. Asserted on what
// the runs found in the cache (inductor's counters and the FX graph cache's entries), never on how
// long they took.
TEST(ScriptCompile, TheAutotestsRoundsShareOneCompileCacheRemovedAfterIt) {
  if (!TorchCompiles()) GTEST_SKIP() << kPython << "'s torch has no torch.compile";
  const fs::path scratch = Scratch("compile_cache");
  const fs::path records = scratch / "records";
  fs::create_directories(records);
  const advisor::testing::ScratchDir private_tmp;  // TMPDIR: short enough for the probe's socket
  const CommandResult run = RunCommand(
      "TMPDIR=" + private_tmp.path() + " ADVISOR_RECIPES_DIR=" + kScripts + "/recipes_compiled " +
          kAdvisor + " bisect -q --autotest --autotest-rounds 2 --rules " + kScripts +
          "/rules_compiled_processes --out " + (scratch / "report").string() + " -- " + kPython +
          " " + kScripts + "/compile_cache_train.py --record " + records.string(),
      scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  json fix;
  for (const json& tried : report["fixes"]) {
    if (tried["recipe"] == "torch-compile-foreach-cpu") fix = tried;
  }
  ASSERT_TRUE(fix.is_object()) << report["fixes"].dump();
  ASSERT_EQ(fix["measured_in"], "processes") << fix.dump();
  ASSERT_EQ(fix["rounds"], 2) << fix.dump();
  ASSERT_EQ(fix["warmup_rounds"].size(), 2u) << fix.dump();
  const json& later = fix["warmup_rounds"][1]["fx_graph_cache"];
  ASSERT_TRUE(later.is_object()) << fix.dump();
  EXPECT_GT(later["hits"].get<int>(), 0) << "the second round loaded its graphs: " << fix.dump();
  EXPECT_EQ(later["misses"], 0) << "and compiled none: " << fix.dump();

  // What each of the autotest's runs found, in the order they started.
  std::map<long long, json> started;  // by the run's start, the record's name: "<ns>-<pid>.json"
  for (const auto& entry : fs::directory_iterator(records)) {
    if (entry.path().extension() != ".json") continue;
    started[std::stoll(entry.path().filename().string())] =
        json::parse(ReadFile(entry.path().string()));
  }
  std::vector<json> runs;
  for (const auto& [start, one] : started) runs.push_back(one);
  ASSERT_GE(runs.size(), 4u) << "two rounds of a baseline and a candidate";
  const std::string folder = runs.front()["folder"];
  EXPECT_EQ(fs::path(folder).parent_path(), fs::path(private_tmp.path())) << folder;
  EXPECT_EQ(fs::path(folder).filename().string().rfind("advisor-compile-cache-", 0), 0u) << folder;
  std::vector<json> compiled;
  for (const json& one : runs) {
    EXPECT_EQ(one["folder"], folder) << "every run shares one folder";
    if (one["hits"].get<int>() + one["misses"].get<int>() > 0) compiled.push_back(one);
  }
  // The numerics run and the two rounds' candidates.
  ASSERT_GE(compiled.size(), 2u);
  EXPECT_GT(compiled.front()["misses"].get<int>(), 0) << "the first compiled into the cache";
  EXPECT_FALSE(compiled.front()["fxgraph"].empty()) << "and stored its graphs there";
  EXPECT_EQ(compiled.back()["fxgraph"], compiled[compiled.size() - 2]["fxgraph"])
      << "the last round added no entry";
  EXPECT_FALSE(fs::exists(folder)) << "removed after the run";
}

TEST(ScriptMode, AValidationBetweenStepsIsNoPhaseOfTheStep) {
  const fs::path scratch = Scratch("validation");
  const std::string tag = UniqueTag();
  const CommandResult run = BisectInto(scratch, kScripts + "/validation_train.py --tag " + tag);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["run"]["batch_size"], 64) << "the training batch, not the validation's";
  const json& step = report["step"];
  // The validation does 64 times the training forward's rows: counted as the step's forward, it
  // would leave evaluation_ms near 0 and forward_ms above it. More than that is a ratio of times,
  // which the profiled window's op recording and a loaded machine move (4.9x once in CI's modern
  // lane beside the sanitized build, where it is 20x unprofiled).
  EXPECT_GT(step["evaluation_ms"].get<double>(), step["forward_ms"].get<double>()) << step.dump();
  EXPECT_GT(step["timed_phases_ms"]["evaluation"].get<double>(),
            step["timed_phases_ms"]["forward"].get<double>())
      << step.dump();
  EXPECT_LT(step["rest_ms"].get<double>(), step["evaluation_ms"].get<double>()) << step.dump();
  // The three linear layers once a step: the training forward's calls alone.
  bool found = false;
  for (const json& op : report["ops"]) {
    if (op["name"] != "aten::linear") continue;
    found = true;
    EXPECT_EQ(op["phase"], "forward");
    EXPECT_NEAR(op["calls"].get<double>(), 3.0, 1e-9) << op.dump();
  }
  EXPECT_TRUE(found) << report["ops"].dump();
}

// The line of `lines` (a report's loss.lines or hotspot.lines) at `file`:`line`; null if none.
const json* LineEntry(const json& lines, const std::string& file, int line) {
  for (const json& entry : lines) {
    if (entry["file"] == file && entry["line"] == line) return &entry;
  }
  return nullptr;
}

// The report.md's first paragraph: the sentence a reader sees first.
std::string FirstParagraph(const fs::path& out) {
  const std::string md = ReadFile((out / "report.md").string());
  const std::size_t start = md.find("\n\n") + 2;
  return md.substr(start, md.find('\n', start) - start);
}

// A batch-hard triplet loss written as a loop over the batch's 128 anchors, a plain function a
// Trainer-like class calls between the model's forward and backward() (issue #33 item 1): a phase
// of its own, its loop's lines named, a finding, and the report's first sentence.
TEST(ScriptMode, ALossOutsideTheModelIsMeasuredAndItsLoopNamed) {
  const fs::path scratch = Scratch("triplet_loss");
  const std::string script = kScripts + "/triplet_train.py";
  const CommandResult run = BisectInto(scratch, script + " --tag " + UniqueTag());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& step = report["step"];
  ASSERT_TRUE(step["loss_ms"].is_number()) << step.dump();
  EXPECT_GT(step["loss_ms"].get<double>(), step["forward_ms"].get<double>())
      << "the loop over anchors outlasts the small network's forward: " << step.dump();
  const json& loss = report["loss"];
  ASSERT_TRUE(loss.is_object()) << report.dump();
  // By hand the loss is most of the step (docs/benchmarks.md); a third leaves room for load.
  EXPECT_GT(loss["share"].get<double>(), 0.33) << loss.dump();
  ASSERT_FALSE(loss["lines"].empty()) << loss.dump();
  // The loop: its header, then its body's three lines.
  const int loop = LineOf(script, "for i in range(len(labels)):");
  ASSERT_GT(loop, 0);
  const json& heaviest = loss["lines"][0];
  EXPECT_EQ(heaviest["file"], script);
  EXPECT_GE(heaviest["line"].get<int>(), loop) << "a line of the loop: " << heaviest.dump();
  EXPECT_LE(heaviest["line"].get<int>(), loop + 3) << heaviest.dump();
  EXPECT_GE(heaviest["runs"].get<double>(), 128.0) << "once an anchor, or more for its header";
  const json* positive = LineEntry(loss["lines"], script, loop + 1);
  ASSERT_NE(positive, nullptr) << loss["lines"].dump();
  EXPECT_EQ((*positive)["text"], "hardest_positive = dist[i][labels == labels[i]].max()");
  EXPECT_GE((*positive)["ops"].get<double>(), 4 * 128.0)
      << "its indexing, comparison and max, each anchor: " << positive->dump();

  const json* finding = FindingOf(report, "costly-loss");
  ASSERT_NE(finding, nullptr) << report["findings"].dump();
  EXPECT_EQ((*finding)["source"]["file"], script);
  const int named = (*finding)["source"]["line"].get<int>();
  EXPECT_GE(named, loop + 1) << "a line of the loop's body, the one to rewrite: "
                             << finding->dump();
  EXPECT_LE(named, loop + 3) << finding->dump();
  EXPECT_NE((*finding)["message"].get<std::string>().find("backward() is a Python loop"),
            std::string::npos)
      << finding->dump();
  EXPECT_EQ(FirstParagraph(scratch / "report")
                .rfind("The biggest avoidable cost is the loss, computed outside the model: ", 0),
            0u)
      << FirstParagraph(scratch / "report");
}

// A span pooler among an encoder and a head, its forward a Python loop of 192 iterations that
// read each span's bounds with .tolist() and slice its tokens, configured by a dict (issue #33
// item 3): the module, its loop's line, the op count and the finding.
TEST(ScriptMode, APythonLoopInAModulesForwardIsNamedWithItsLine) {
  const fs::path scratch = Scratch("span_pooler");
  const std::string script = kScripts + "/span_pooler_train.py";
  const CommandResult run = BisectInto(scratch, script + " --tag " + UniqueTag());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& hotspot = report["hotspot"];
  ASSERT_TRUE(hotspot.is_object()) << report["bisection"].dump();
  EXPECT_EQ(hotspot["path"], "pooler");
  const json* finding = FindingOf(report, "python-loop");
  ASSERT_NE(finding, nullptr) << report["findings"].dump() << hotspot["lines"].dump();
  EXPECT_EQ((*finding)["path"], "pooler");
  ASSERT_TRUE((*finding)["source"].is_object()) << finding->dump();
  EXPECT_EQ((*finding)["source"]["file"], script);
  const json* line = LineEntry(hotspot["lines"], script, (*finding)["source"]["line"].get<int>());
  ASSERT_NE(line, nullptr) << hotspot["lines"].dump();
  EXPECT_EQ((*line)["runs_per_call"].get<double>(), 192.0) << "8 sequences x 24 spans";
  EXPECT_GE((*line)["ops_per_call"].get<double>(), 2 * 192.0) << line->dump();
  EXPECT_NE((*finding)["evidence"].get<std::string>().find("192 runs"), std::string::npos)
      << finding->dump();
  // Judged by its ops by name against the view ops' time beside them (rules/python_loop.lua): a
  // loop of small ops, so the step waits on Python.
  EXPECT_NE((*finding)["message"].get<std::string>().find("waits on Python"), std::string::npos)
      << finding->dump();
  EXPECT_FALSE((*line)["op_kinds"].empty()) << line->dump();
  EXPECT_TRUE(hotspot["view_op_us"].is_number()) << "the slicing line's aten::slice";
  // The line that only slices has its ops too (torch 1.x's indexing reaches no TorchFunctionMode:
  // the line tracer sees it).
  const json* slicing =
      LineEntry(hotspot["lines"], script, LineOf(script, "tokens = hidden[b, start:end]"));
  ASSERT_NE(slicing, nullptr) << hotspot["lines"].dump();
  EXPECT_EQ((*slicing)["text"], "tokens = hidden[b, start:end]");
  EXPECT_GE((*slicing)["ops_per_call"].get<double>(), 192.0) << slicing->dump();
  EXPECT_EQ(FirstParagraph(scratch / "report")
                .rfind("The biggest avoidable cost is a Python loop in `pooler`'s forward: ", 0),
            0u)
      << FirstParagraph(scratch / "report");
}

// An item tower's embedding fed integer ids sends no "backward end"; the context tower beside it
// runs its backward next, unmarked inside the item tower. The embedding's interval ends with its
// own nodes: it took the context tower's backward and was named before (issue #33, recsys_train).
TEST(ScriptMode, AnEmbeddingFedIdsKeepsOnlyItsOwnBackward) {
  const fs::path scratch = Scratch("two_towers");
  const CommandResult run =
      BisectInto(scratch, kScripts + "/two_towers_train.py --tag " + UniqueTag());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& levels = report["bisection"]["levels"];
  for (const json& level : levels) EXPECT_NE(level["chosen"], "items.emb") << level.dump();
  const std::string path = report["hotspot"]["path"];
  EXPECT_EQ(path.rfind("items.proj", 0), 0u) << levels.dump();
}

// A LightningModule's training_step without Lightning (tests/script_runs/training_step_train.py):
// encoder and head are called outermost, the module holding them never is. The hot spot is named
// as the script spells it, not by the first root's class (Sequential.2, issue #26).
TEST(ScriptMode, ChildrenCalledByATrainingStepAreNamedThroughTheirOwner) {
  const fs::path scratch = Scratch("training_step");
  const CommandResult run =
      BisectInto(scratch, kScripts + "/training_step_train.py --tag " + UniqueTag());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& levels = report["bisection"]["levels"];
  ASSERT_FALSE(levels.empty()) << report["bisection"].dump();
  EXPECT_EQ(levels[0]["chosen"], "encoder") << levels.dump();
  EXPECT_EQ(report["hotspot"]["path"], "encoder.2") << levels.dump();
}

// A layer that weights each point's neighbours by their distance, computed through a broadcast
// [16, 64, 64, 16] temporary that is squared and summed (issue #33 item 5): the probe's input
// shapes reveal the temporary, and the finding names its module, its line and the change.
TEST(ScriptMode, ABroadcastTemporaryReducedRightAfterIsNamedWithItsLine) {
  const fs::path scratch = Scratch("neighbours");
  const std::string script = kScripts + "/neighbours_train.py";
  const CommandResult run = BisectInto(scratch, script + " --tag " + UniqueTag());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  ASSERT_FALSE(report["broadcasts"].empty()) << report["bisection"].dump();
  const json& temporary = report["broadcasts"][0];
  EXPECT_EQ(temporary["path"], "neighbours") << temporary.dump();
  EXPECT_EQ(temporary["op"], "aten::sub");
  EXPECT_EQ(temporary["elements"], 16 * 64 * 64 * 16);
  EXPECT_EQ(temporary["input_elements"], 16 * 64 * 16);
  const json& reads = temporary["reads"];
  EXPECT_NE(std::find(reads.begin(), reads.end(), "aten::sum"), reads.end()) << temporary.dump();
  const json* finding = FindingOf(report, "broadcast-temporary");
  ASSERT_NE(finding, nullptr) << report["findings"].dump() << temporary.dump();
  EXPECT_EQ((*finding)["path"], "neighbours");
  ASSERT_TRUE((*finding)["source"].is_object()) << finding->dump();
  EXPECT_EQ((*finding)["source"]["file"], script);
  EXPECT_EQ((*finding)["source"]["line"],
            LineOf(script, "dist = (z[:, :, None, :] - z[:, None, :, :]).pow(2).sum(-1)"));
  EXPECT_NE((*finding)["message"].get<std::string>().find("torch.cdist"), std::string::npos);
}

// Twelve identical blocks in a ModuleList, one refining its output in a second, gated pass: about
// twice a sibling's cost, and one parameter more (issue #33 item 4). The level that names it says
// it did so comparing it with its 11 siblings, which the extra parameter prevented before.
TEST(ScriptMode, ABlockTwiceItsIdenticalSiblingsWithAnExtraParameterIsNamed) {
  const fs::path scratch = Scratch("siblings");
  const CommandResult run =
      BisectInto(scratch, kScripts + "/siblings_train.py --tag " + UniqueTag());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& levels = report["bisection"]["levels"];
  const auto compared = std::find_if(levels.begin(), levels.end(), [](const json& level) {
    return level["chosen"] == "blocks.2";
  });
  ASSERT_NE(compared, levels.end()) << levels.dump();
  EXPECT_EQ((*compared)["reason"].get<std::string>().rfind("blocks.2: ", 0), 0u)
      << compared->dump();
  EXPECT_NE((*compared)["reason"].get<std::string>().find("the median of its 11 same-shaped "
                                                          "siblings"),
            std::string::npos)
      << compared->dump();
  const std::string path = report["hotspot"]["path"];
  EXPECT_TRUE(path == "blocks.2" || path.rfind("blocks.2.", 0) == 0) << path;
}

// Three identical blocks, one of whose `up` projections (three levels down) keeps 1 to 2 MiB of
// wide activations for the backward where its siblings keep at most 64 KiB (issue #27 items 1, 2):
// the bisection's windows attribute the allocations to the instance that made them and narrow the
// peak's holder to it, whichever way the time led the levels; its memory does not climb from step
// to step. Kept every step, its predictions make the memory-growth finding, which names their line.
TEST(ScriptMode, TheInstanceKeepingTheLargestActivationHoldsThePeak) {
  const fs::path scratch = Scratch("memory_holder");
  const std::string script = kScripts + "/memory_holder_train.py --tag " + UniqueTag();
  const CommandResult run = BisectInto(scratch, script);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& memory = report["memory"];
  ASSERT_TRUE(memory.contains("peak")) << memory.dump();
  EXPECT_EQ(memory["peak"]["path"], "blocks.1.mlp.up") << memory["peak"].dump();
  EXPECT_GT(memory["peak"]["by_category"]["parameters"].get<double>(), 0) << memory.dump();
  for (const json& module : memory["modules"]) {
    const std::string path = module["path"];
    const double kept_mb = module.value("kept_for_backward_mb", 0.0);
    if (path == "blocks.1.mlp.up") {
      EXPECT_GE(kept_mb, 0.9) << module.dump();  // the widened tensor: 1 MiB (2 on torch 1.13)
    } else if (path.rfind("blocks.1", 0) != 0) {
      EXPECT_LT(kept_mb, 0.25) << module.dump();
    }
  }
  EXPECT_NE(std::find_if(memory["modules"].begin(), memory["modules"].end(),
                         [](const json& m) { return m["path"] == "blocks.1.mlp.up"; }),
            memory["modules"].end())
      << memory["modules"].dump();
  EXPECT_FALSE(memory.contains("growth_mb_per_step")) << memory.dump();
  EXPECT_EQ(FindingOf(report, "memory-growth"), nullptr);

  const fs::path kept = Scratch("memory_growth");
  ASSERT_EQ(BisectInto(kept, script + " --keep-outputs").exit_code, 0);
  const json growing = Report(kept / "report");
  const json* finding = FindingOf(growing, "memory-growth");
  ASSERT_NE(finding, nullptr) << growing["memory"].dump();
  EXPECT_NEAR(growing["memory"]["growth_mb_per_step"].get<double>(), 1.0, 0.1)
      << growing["memory"].dump();
  // The line that keeps them, read in labelled steps of the loss, where it runs.
  const std::string file = kScripts + "/memory_holder_train.py";
  const int keeping = LineOf(file, "predictions.append(");
  ASSERT_GT(keeping, 0);
  ASSERT_TRUE(growing["memory"].contains("growth_source")) << growing["memory"].dump();
  EXPECT_EQ(growing["memory"]["growth_source"]["file"], file);
  EXPECT_EQ(growing["memory"]["growth_source"]["line"], keeping);
  EXPECT_NE((*finding)["message"].get<std::string>().find(file + ":" + std::to_string(keeping) +
                                                          " keeps them"),
            std::string::npos)
      << (*finding)["message"];
}

// A relative-position token mixer whose forward makes MulBackward0 nodes at two lines: its
// product over batch x seq x seq x dim (most of the step) and the dropout after its projection
// (next to nothing), in a plain training loop (issue #33 item 2). The hot spot's line is the
// product's, where the report named the dropout's: the ops of one name were merged and the first
// found named the line.
TEST(ScriptMode, TheHotOpsLineIsTheCallSiteThatCostsNotTheFirstOfItsName) {
  const fs::path scratch = Scratch("relpos_call_site");
  const std::string script = kScripts + "/relpos_train.py";
  const CommandResult run = BisectInto(scratch, script + " --tag " + UniqueTag());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& hotspot = report["hotspot"];
  ASSERT_TRUE(hotspot.is_object()) << report["bisection"].dump();
  EXPECT_EQ(hotspot["path"], "mixer") << report["bisection"].dump();
  ASSERT_EQ(hotspot["op"], "MulBackward0") << hotspot["top_ops"].dump();
  const int product = LineOf(script, "pairs = keys * self.rel_pos");
  const int dropout = LineOf(script, "h = self.dropout(self.proj(h))");
  ASSERT_GT(product, 0);
  ASSERT_GT(dropout, 0);
  ASSERT_TRUE(hotspot["source"].is_object()) << hotspot.dump();
  EXPECT_EQ(hotspot["source"]["file"], script);
  EXPECT_EQ(hotspot["source"]["line"], product)
      << "the product's line, not the dropout's (" << dropout << "): " << hotspot.dump();
  EXPECT_EQ(hotspot["forward_op"], "aten::mul") << "the product's op, not aten::dropout";
  // Both lines, the product's first with most of the op's time.
  const json& op_lines = hotspot["op_lines"];
  ASSERT_EQ(op_lines.size(), 2u) << op_lines.dump();
  EXPECT_EQ(op_lines[0]["line"], product) << op_lines.dump();
  EXPECT_EQ(op_lines[0]["forward_op"], "aten::mul");
  EXPECT_GT(op_lines[0]["share"].get<double>(), 0.8) << op_lines.dump();
  EXPECT_EQ(op_lines[1]["line"], dropout) << op_lines.dump();
  EXPECT_EQ(op_lines[1]["forward_op"], "aten::dropout");
  const std::string md = ReadFile((scratch / "report" / "report.md").string());
  EXPECT_NE(md.find("`MulBackward0` ran at 2 lines of your code"), std::string::npos) << md;
}

// Short epochs whose DataLoader workers take 0.3 s to start (tests/script_runs/epochs_train.py).
std::string Epochs(const std::string& tag, const std::string& arguments = "") {
  return kPython + " " + kScripts + "/epochs_train.py --tag " + tag + " " + arguments;
}

TEST(ScriptMode, ShortEpochsThatRestartTheirWorkersAreToldToKeepThem) {
  const fs::path scratch = Scratch("persistent_workers");
  const std::string tag = UniqueTag();
  const CommandResult run = RunCommand(
      kAdvisor + " bisect -q --out " + (scratch / "report").string() + " -- " + Epochs(tag),
      scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& loader = report["data"]["loader"];
  ASSERT_TRUE(loader.is_object()) << report["data"].dump();
  EXPECT_EQ(loader["workers"], 2);
  EXPECT_EQ(loader["persistent"], false);
  EXPECT_EQ(loader["epoch_batches"], 6);
  EXPECT_DOUBLE_EQ(loader["batches_per_step"].get<double>(), 1.0);
  EXPECT_GE(loader["epochs_seen"].get<int>(), 1) << "6-step epochs start inside the windows";
  ASSERT_TRUE(loader["epoch_start_ms"].is_number()) << loader.dump();
  EXPECT_GE(loader["epoch_start_ms"].get<double>(), 250.0) << "the workers' 0.3 s start";
  EXPECT_LT(loader["epoch_start_ms"].get<double>(), 5000.0);
  const json* finding = FindingOf(report, "persistent-workers");
  ASSERT_NE(finding, nullptr) << report["findings"].dump();
  EXPECT_EQ((*finding)["recipe"], "persistent-workers");
  EXPECT_NE((*finding)["evidence"].get<std::string>().find("over an epoch of 6 batches"),
            std::string::npos)
      << (*finding)["evidence"];
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

TEST(ScriptMode, WorkersKeptAcrossEpochsAreNotToldToBeKept) {
  const fs::path scratch = Scratch("persistent_workers_on");
  const std::string tag = UniqueTag();
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q --out " + (scratch / "report").string() + " -- " +
                     Epochs(tag, "--persistent"),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& loader = report["data"]["loader"];
  ASSERT_TRUE(loader.is_object()) << report["data"].dump();
  EXPECT_EQ(loader["persistent"], true);
  EXPECT_GE(loader["epochs_seen"].get<int>(), 1);
  ASSERT_TRUE(loader["epoch_start_ms"].is_number()) << loader.dump();
  EXPECT_LT(loader["epoch_start_ms"].get<double>(), 250.0) << "no worker starts again";
  EXPECT_EQ(FindingOf(report, "persistent-workers"), nullptr) << report["findings"].dump();
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

struct BadScript {
  std::string name;
  std::string command;   // after "--"
  std::string expected;  // in advisor's one error line
  std::string options;   // before "--"
  int exit_code = 1;     // advisor's exit status: 124 (timeout(1)'s) for a script that hangs

  friend void PrintTo(const BadScript& bad, std::ostream* out) { *out << bad.name; }
};

class RejectsBadScript : public ::testing::TestWithParam<BadScript> {};

// A Python without torch: a venv of the same interpreter, without the system's packages.
std::string PythonWithoutTorch() {
  const fs::path dir = fs::path(ADVISOR_TEST_SCRATCH_DIR) / "venv-without-torch";
  if (!fs::exists(dir / "bin" / "python")) {
    EXPECT_EQ(std::system((kPython + " -m venv --without-pip " + dir.string()).c_str()), 0);
  }
  return (dir / "bin" / "python").string();
}

TEST_P(RejectsBadScript, WithOneLineAndNoReportOrProcessLeft) {
  const BadScript& bad = GetParam();
  const fs::path scratch = Scratch("bad_" + bad.name);
  const std::string tag = UniqueTag();
  std::string command = bad.command;
  for (std::size_t at; (at = command.find("TAG")) != std::string::npos;)
    command.replace(at, 3, tag);
  if (command.rfind("VENV", 0) == 0) command.replace(0, 4, PythonWithoutTorch());
  const CommandResult run = RunCommand(kAdvisor + " bisect " + bad.options + " --out " +
                                           (scratch / "report").string() + " -- " + command,
                                       scratch.string());
  EXPECT_EQ(run.exit_code, bad.exit_code) << run.err;
  const std::string error = AdvisorError(run);
  EXPECT_NE(error.find(bad.expected), std::string::npos) << run.err;
  EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << "one line: " << error;
  EXPECT_FALSE(fs::exists(scratch / "report")) << "no report";
  EXPECT_EQ(ProcessesTagged(tag), 0) << "no process left behind";
}

INSTANTIATE_TEST_SUITE_P(
    Scripts, RejectsBadScript,
    ::testing::Values(
        BadScript{"not_python", "/bin/true TAG", "/bin/true is not Python", "-q"},
        BadScript{"no_such_program", "no-such-program-TAG x.py", "no such program", "-q"},
        BadScript{"without_torch", "VENV " + kScripts + "/train_sample.py --tag TAG",
                  "has no torch", "-q"},
        BadScript{"fails_early", kPython + " " + kScripts + "/fails_early.py TAG",
                  "fails_early.py failed (exit status 1) before its second training step", "-q"},
        BadScript{"ends_too_early",
                  kPython + " " + kScripts + "/train_sample.py --epochs 2 --tag TAG",
                  "train_sample.py ended (exit status 0) after", "-q"},
        BadScript{"ends_with_os_exit",
                  kPython + " " + kScripts +
                      "/train_sample.py --epochs 2 --exit-status 3 --os-exit --tag TAG",
                  "train_sample.py failed (exit status 3) after 15 steps while advisor was "
                  "profiling the baseline window, with no Python error: it called os._exit",
                  "-q"},
        BadScript{"module_name_with_a_control_character",
                  kPython + " " + kScripts + "/odd_module_name.py control TAG",
                  "odd_module_name.py: the model's module 'block\\x01' has a control character in "
                  "its name: advisor names modules in its lines and its report; rename it",
                  "-q"},
        BadScript{"module_name_with_a_lone_surrogate",
                  kPython + " " + kScripts + "/odd_module_name.py surrogate TAG",
                  "odd_module_name.py: the model's module 'block\\ud800' has a lone surrogate in "
                  "its name",
                  "-q"},
        BadScript{"no_optimizer", kPython + " " + kScripts + "/no_optimizer.py TAG",
                  "without stepping a torch.optim optimizer", "-q"},
        BadScript{
            "a_rank_without_its_job",
            "env RANK=0 WORLD_SIZE=2 " + kPython + " " + kScripts + "/train_sample.py --tag TAG",
            "train_sample.py: rank 1 of 2 did not start advisor's probe in 3 s",
            "-q --step-timeout 3"},
        BadScript{
            "rank_out_of_range",
            "env RANK=7 WORLD_SIZE=3 " + kPython + " " + kScripts + "/train_sample.py --tag TAG",
            "train_sample.py was started with RANK=7 and WORLD_SIZE=3: WORLD_SIZE must be "
            "from 1 to 1048576 and RANK from 0 to WORLD_SIZE - 1",
            "-q"},
        BadScript{"ranks_on_several_machines",
                  "env RANK=0 WORLD_SIZE=2 LOCAL_WORLD_SIZE=1 " + kPython + " " + kScripts +
                      "/train_sample.py --tag TAG",
                  "train_sample.py runs 2 ranks, 1 of them on this machine", "-q"},
        BadScript{"autotest_on_several_nodes",
                  "env RANK=0 WORLD_SIZE=2 LOCAL_WORLD_SIZE=1 GROUP_RANK=0 GROUP_WORLD_SIZE=2 " +
                      kPython + " " + kScripts + "/train_sample.py --tag TAG",
                  "--autotest relaunches the job on this machine alone; a job of 2 nodes",
                  "-q --autotest"},
        BadScript{"hangs", kPython + " " + kScripts + "/hangs.py TAG",
                  "hangs.py made no training step in 3 s", "-q --step-timeout 3", 124},
        BadScript{"model_only_flags", kPython + " " + kScripts + "/train_sample.py --tag TAG",
                  "--device, --batch-size: for a model.pt's workload; a script sets its own",
                  "-q --device cpu --batch-size 8"}),
    [](const ::testing::TestParamInfo<BadScript>& info) { return info.param.name; });

TEST(RejectsBadScript, ATorchOtherThanTheProbesIsRefusedBeforeTheScriptRuns) {
  const fs::path scratch = Scratch("other_torch");
  // The probe as built, but claiming another torch.
  const fs::path probe = scratch / "probe";
  fs::copy(fs::path(ADVISOR_PROBE_DIR), probe, fs::copy_options::recursive);
  json info = json::parse(ReadFile((probe / "build_info.json").string()));
  info["python_torch"]["torch_version"] = "9.9.9";
  std::ofstream((probe / "build_info.json").string()) << info.dump();
  const std::string tag = UniqueTag();
  const CommandResult run =
      RunCommand("ADVISOR_PROBE_DIR=" + probe.string() + " " + kAdvisor + " bisect -q --out " +
                     (scratch / "report").string() + " -- " + Sample(tag),
                 scratch.string());
  EXPECT_NE(run.exit_code, 0);
  const std::string error = AdvisorError(run);
  EXPECT_NE(error.find("advisor's probe was built against torch 9.9.9"), std::string::npos)
      << run.err;
  EXPECT_NE(error.find("rebuild with scripts/setup.sh --python"), std::string::npos);
  EXPECT_EQ(run.out.find("epoch"), std::string::npos) << "the script never ran";
  EXPECT_FALSE(fs::exists(scratch / "report"));
}

// Ctrl-C, or a SIGTERM from a job scheduler: the script dies with advisor, and neither the report
// folder this run made nor a scratch folder in $TMPDIR is left behind. `command` (after "--")
// carries `tag`; advisor is interrupted once it profiles the first level.
void ExpectInterruptLeavesNothing(int signal_number, const std::string& name,
                                  const std::string& command, const std::string& tag) {
  const fs::path scratch = Scratch(name + "-" + std::to_string(signal_number));
  const advisor::testing::ScratchDir private_tmp;  // TMPDIR: short enough for the probe's socket
  const fs::path tmp = private_tmp.path();
  const std::string err_path = (scratch / "stderr.txt").string();
  const pid_t advisor = fork();
  if (advisor == 0) {
    const std::string shell = "TMPDIR=" + tmp.string() + " exec " + kAdvisor + " bisect --out " +
                              (scratch / "report").string() + " -- " + command + " >/dev/null 2>" +
                              err_path;
    execl("/bin/sh", "sh", "-c", shell.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Interrupt once the script is training under advisor.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ReadFile(err_path).find("level 1") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(advisor, signal_number);
  int status = 0;
  waitpid(advisor, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << ReadFile(err_path);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(ProcessesTagged(tag), 0) << "the script and its workers are gone";
  EXPECT_FALSE(fs::exists(scratch / "report")) << "the report folder this run made is removed";
  // Only advisor's own: a DataLoader worker killed mid-step may leave Python's pymp-* behind.
  for (const auto& entry : fs::directory_iterator(tmp)) {
    EXPECT_NE(entry.path().filename().string().rfind("advisor", 0), 0u)
        << entry.path() << " is left behind";
  }
}

class ScriptInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(ScriptInterrupt, EndsAdvisorAndTheScriptAndLeavesNothing) {
  const std::string tag = UniqueTag();
  ExpectInterruptLeavesNothing(GetParam(), "interrupted", Sample(tag, "--epochs 1000"), tag);
}

INSTANTIATE_TEST_SUITE_P(Signals, ScriptInterrupt, ::testing::Values(SIGINT, SIGTERM));

// ---- Several ranks under a launcher -----------------------------------------------------------

// tests/script_runs/ddp_train.py on two gloo ranks, started by torch.distributed.run. Debian's
// torch 1.13 under Python 3.11 needs --redirects and --tee set to a value other than 0 (its parser
// cannot read "0", the default); --log_dir keeps the launcher's logs in the test's scratch folder.
// The one machine's rendezvous as --standalone makes it, but on a port the launcher's store binds
// as port 0 (the kernel's free choice): torch 1.13's --standalone fixes it at 29400, where two
// test runs on one machine (two checkouts, or both CI lanes) met and one hung.
std::string TwoRanks(const fs::path& scratch, const std::string& tag,
                     const std::string& arguments) {
  return kPython + " -m torch.distributed.run --rdzv_backend c10d --rdzv_endpoint localhost:0 " +
         "--rdzv_id " + tag + " --nproc_per_node 2 --redirects 2 --tee 2 --log_dir " +
         (scratch / "launcher-logs").string() + " " + kScripts + "/ddp_train.py --tag " + tag +
         " " + arguments;
}

// Two ranks share this machine's two cores with their gloo threads: ten steps a window (not five)
// keep the scheduling's noise out of the lateness and the modules' excess.
const std::string kRankWindow = "--steps 10";

bool HasFinding(const json& report, const std::string& rule) {
  for (const json& finding : report["findings"]) {
    if (finding["rule"] == rule) return true;
  }
  return false;
}

TEST(ScriptRanks, NamesThePlantedStragglerRankAndItsModule) {
  const fs::path scratch = Scratch("ranks_straggler");
  const std::string tag = UniqueTag();
  // 48 planted multiplies, not the script's 16: the rule names the module where it holds half of
  // the rank's extra compute, and on a busy VM the ranks' other modules differed by 20 ms a step
  // (CI's modern lane: blocks.2 held 12.9 of rank 1's 33.3 ms, and no finding was made).
  const CommandResult run = RunCommand(kAdvisor + " bisect -q " + kRankWindow + " --out " +
                                           (scratch / "report").string() + " -- " +
                                           TwoRanks(scratch, tag, "--slow-rank 1 --slow-work 48"),
                                       scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("straggler: rank 1, "), std::string::npos) << run.out;
  const json report = Report(scratch / "report");
  EXPECT_EQ(report["run"]["model"], kScripts + "/ddp_train.py") << "the script, not the launcher";
  const json& distributed = report["distributed"];
  ASSERT_TRUE(distributed.is_object()) << run.out;
  EXPECT_EQ(distributed["world_size"], 2);
  ASSERT_EQ(distributed["ranks"].size(), 2u);
  EXPECT_GT(distributed["collectives_matched"].get<int>(), 0);
  ASSERT_TRUE(distributed["straggler"].is_object()) << run.out;
  EXPECT_EQ(distributed["straggler"]["rank"], 1);
  EXPECT_EQ(distributed["straggler"]["path"], "blocks.2");
  // The planted work is in blocks.2's forward: the steps timed without a profiler show it too.
  EXPECT_EQ(distributed["straggler"]["holds_unprofiled"], true) << distributed.dump();
  EXPECT_GT(distributed["straggler"]["unprofiled_excess_ms"].get<double>(), 0) << run.out;
  for (const json& rank : distributed["ranks"]) {
    ASSERT_TRUE(rank["unprofiled"].is_object()) << run.out;
    EXPECT_GT(rank["unprofiled"]["forward_ms"].get<double>(), 0);
  }
  EXPECT_TRUE(HasFinding(report, "straggler-rank")) << run.out;
  // The bisection decided on the slow rank's windows: its extra work is the hot spot.
  EXPECT_EQ(report["hotspot"]["path"], "blocks.2") << run.out;
  EXPECT_NE(ReadFile((scratch / "report" / "report.md").string()).find("## Ranks"),
            std::string::npos);
  EXPECT_EQ(ProcessesTagged(tag), 0) << "the launcher and both ranks are gone";
}

TEST(ScriptRanks, NoStragglerWithoutThePlantedDelay) {
  const fs::path scratch = Scratch("ranks_even");
  const std::string tag = UniqueTag();
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q " + kRankWindow + " --out " +
                     (scratch / "report").string() + " -- " + TwoRanks(scratch, tag, ""),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  ASSERT_TRUE(report["distributed"].is_object());
  EXPECT_EQ(report["distributed"]["ranks"].size(), 2u);
  EXPECT_FALSE(HasFinding(report, "straggler-rank")) << run.out;
  EXPECT_FALSE(HasFinding(report, "unbalanced-data-per-rank")) << run.out;
  EXPECT_EQ(ProcessesTagged(tag), 0);
}

TEST(ScriptRanks, AutotestRelaunchesTheJobWithTheDdpKnobInEveryRank) {
  const fs::path scratch = Scratch("ranks_autotest");
  const std::string tag = UniqueTag();
  // Each try relaunches the whole job: only the no_sync rule is loaded (it fires on the script's
  // structure, two micro-steps a step and both synchronised, whatever the timings).
  const fs::path rules = OnlyBuiltInRules(scratch, "gradient_sync_per_micro_step.lua");
  const CommandResult run = RunCommand("ADVISOR_RULES_DIR=" + rules.string() + " " + kAdvisor +
                                           " bisect -q --autotest --autotest-rounds 1 --out " +
                                           (scratch / "report").string() + " -- " +
                                           TwoRanks(scratch, tag, "--accumulate 2"),
                                       scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = Report(scratch / "report");
  const json& state = report["training_state"];
  ASSERT_TRUE(state.is_object()) << report.dump();
  EXPECT_EQ(state["wrapper"], "DistributedDataParallel");
  EXPECT_EQ(state["micro_steps"], 2);
  EXPECT_EQ(state["synced_micro_steps"], 2);
  EXPECT_GT(state["parameter_mb"].get<double>(), 0.0);
  EXPECT_TRUE(HasFinding(report, "gradient-sync-every-micro-step")) << run.out;
  const json& fixes = report["fixes"];
  ASSERT_EQ(fixes.size(), 1u) << fixes.dump();
  const json& no_sync = fixes[0];
  EXPECT_EQ(no_sync["recipe"], "ddp-no-sync");
  EXPECT_NE(no_sync["status"], "failed") << no_sync.dump();
  EXPECT_NE(no_sync["status"], "skipped") << "the script builds a DDP: " << no_sync.dump();
  ASSERT_TRUE(no_sync["numerics"].is_object()) << no_sync.dump();
  EXPECT_LE(no_sync["numerics"]["max_rel_diff"].get<double>(),
            no_sync["numerics"]["tolerance"].get<double>())
      << "the same gradients, summed before the all-reduce instead of after";
  EXPECT_GT(no_sync["candidate"]["median_ms"].get<double>(), 0.0) << no_sync.dump();
  EXPECT_EQ(ProcessesTagged(tag), 0) << "every run's launcher and ranks are gone";
}

// One rank fails, or stops making progress: one line, a non-zero exit, no report, and neither
// the launcher nor any rank left running.
struct RankEnd {
  std::string name;
  std::string arguments;  // for ddp_train.py
  std::string options;    // advisor's
  std::string expected;
  friend void PrintTo(const RankEnd& end, std::ostream* out) { *out << end.name; }
};

class ScriptRanksEnd : public ::testing::TestWithParam<RankEnd> {};

TEST_P(ScriptRanksEnd, WithOneLineAndNoProcessLeft) {
  const RankEnd& end = GetParam();
  const fs::path scratch = Scratch("ranks_" + end.name);
  const std::string tag = UniqueTag();
  const CommandResult run =
      RunCommand(kAdvisor + " bisect -q " + end.options + " --out " +
                     (scratch / "report").string() + " -- " + TwoRanks(scratch, tag, end.arguments),
                 scratch.string());
  EXPECT_NE(run.exit_code, 0);
  const std::string error = AdvisorError(run);
  EXPECT_NE(error.find(end.expected), std::string::npos) << run.err;
  EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << "one line: " << error;
  EXPECT_FALSE(fs::exists(scratch / "report"));
  EXPECT_EQ(ProcessesTagged(tag), 0) << "the launcher and both ranks are gone";
}

INSTANTIATE_TEST_SUITE_P(Ranks, ScriptRanksEnd,
                         ::testing::Values(RankEnd{"crash", "--crash-rank 1", "",
                                                   "ddp_train.py failed (exit status 1) after"},
                                           RankEnd{"leave", "--leave-rank 1", "",
                                                   "ddp_train.py (rank 1) ended cleanly after 7 "
                                                   "steps while the other ranks were still "
                                                   "training"},
                                           RankEnd{"hang", "--hang-rank 1", "--step-timeout 5",
                                                   "ddp_train.py made no training step in 5 s"}),
                         [](const ::testing::TestParamInfo<RankEnd>& info) {
                           return info.param.name;
                         });

// ---- Several nodes -----------------------------------------------------------------------------

// A port the kernel picked (bind to port 0, read it), held until the test ends: bound, not
// listening, with SO_REUSEADDR, so that no other socket is given it meanwhile, while node 0's
// rendezvous store, which binds with SO_REUSEADDR too, can listen on it. A port let go before the
// launchers start could go to another test run's socket first.
class HeldPort {
 public:
  HeldPort() : socket_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    const int reuse = 1;
    setsockopt(socket_, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    EXPECT_EQ(bind(socket_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length);
    number_ = ntohs(address.sin_port);
  }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  ~HeldPort() { close(socket_); }
  int number() const { return number_; }

 private:
  int socket_;
  int number_ = 0;
};

// Node `node` of a job of two nodes, one rank each, on this machine: what `torchrun --nnodes 2
// --node_rank K` runs on each of two machines.
std::string NodeOfTwo(const fs::path& scratch, int node, int port, const std::string& tag,
                      const std::string& arguments) {
  return kPython + " -m torch.distributed.run --nnodes 2 --node_rank " + std::to_string(node) +
         " --nproc_per_node 1 --master_addr 127.0.0.1 --master_port " + std::to_string(port) +
         " --redirects 2 --tee 2 --log_dir " +
         (scratch / ("launcher-logs-" + std::to_string(node))).string() + " " + kScripts +
         "/ddp_train.py --tag " + tag + " --epochs 1000 " + arguments;
}

// Runs `node_one` in the background and `node_zero` here, each with its output in a folder of
// its own; returns both results once both have ended.
std::pair<CommandResult, CommandResult> RunTwoNodes(const fs::path& scratch,
                                                    const std::string& node_zero,
                                                    const std::string& node_one) {
  fs::create_directories(scratch / "node-0");
  fs::create_directories(scratch / "node-1");
  std::future<CommandResult> one = std::async(
      std::launch::async, [&] { return RunCommand(node_one, (scratch / "node-1").string()); });
  CommandResult zero = RunCommand(node_zero, (scratch / "node-0").string());
  return {std::move(zero), one.get()};
}

// Four advisor and launcher processes and two ranks share the cores: six times the planted work
// of the one-machine test keeps the straggler clear of their scheduling (with three times, torch
// 2.15's ranks on the 2-core VM showed 27 ms of a 49 ms excess outside the profiled windows in one
// run of three, which the unprofiled check did not take for the straggler holding).
TEST(ScriptNodes, EachNodeBisectsItsRanksAndNodeZeroMergesTheReport) {
  const fs::path scratch = Scratch("nodes_straggler");
  const std::string tag = UniqueTag();
  const HeldPort port;
  const fs::path shared = scratch / "shared";
  const auto node_command = [&](int node) {
    return kAdvisor + " bisect -q " + kRankWindow + " --out " + shared.string() + " -- " +
           NodeOfTwo(scratch, node, port.number(), tag, "--slow-rank 1 --slow-work 96");
  };
  const auto [zero, one] = RunTwoNodes(scratch, node_command(0), node_command(1));
  ASSERT_EQ(zero.exit_code, 0) << zero.err;
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(
      one.out.find("node 1: its ranks' summary is in " + (shared / "nodes/node-1.json").string() +
                   "; node 0 writes the merged report to " + shared.string() + "/report.json"),
      std::string::npos)
      << one.out;
  EXPECT_EQ(one.out.find("hot spot:"), std::string::npos) << "node 1 reports nothing itself";
  EXPECT_NE(zero.out.find("straggler: rank 1, "), std::string::npos) << zero.out;
  const json report = Report(shared);
  const json& distributed = report["distributed"];
  ASSERT_TRUE(distributed.is_object()) << zero.out;
  EXPECT_EQ(distributed["world_size"], 2);
  ASSERT_EQ(distributed["ranks"].size(), 2u);
  EXPECT_EQ(distributed["ranks"][0]["node"], 0);
  EXPECT_EQ(distributed["ranks"][1]["node"], 1);
  ASSERT_TRUE(distributed["straggler"].is_object()) << distributed.dump();
  EXPECT_EQ(distributed["straggler"]["rank"], 1);
  EXPECT_EQ(distributed["straggler"]["path"], "blocks.2");
  ASSERT_EQ(distributed["nodes"].size(), 2u);
  const json& node_one = distributed["nodes"][1];
  EXPECT_EQ(node_one["file"], "nodes/node-1.json");
  EXPECT_EQ(node_one["ranks"], json::array({1}));
  EXPECT_EQ(node_one["hotspot"].get<std::string>().rfind("blocks.2", 0), 0u)
      << "node 1 bisected its own rank, the slow one: " << node_one.dump();
  EXPECT_GT(node_one["clock_samples"].get<int>(), 0);
  // Both "nodes" read this machine's one clock: the estimate finds no offset but the noise.
  EXPECT_LT(std::abs(node_one["clock_offset_ms"].get<double>()), 100.0) << node_one.dump();
  EXPECT_NE(ReadFile((shared / "report.md").string()).find("on 2 nodes"), std::string::npos);
  EXPECT_EQ(ProcessesTagged(tag), 0) << "both launchers and both ranks are gone";
}

TEST(ScriptNodes, ANodeThatNeverWritesItsSummaryIsNamed) {
  const fs::path scratch = Scratch("nodes_missing");
  const std::string tag = UniqueTag();
  const HeldPort port;
  const fs::path shared = scratch / "shared";
  // Node 1 trains without advisor: its summary never comes.
  const auto [zero, one] =
      RunTwoNodes(scratch,
                  kAdvisor + " bisect -q --steps 3 --nodes-timeout 3 --out " + shared.string() +
                      " -- " + NodeOfTwo(scratch, 0, port.number(), tag, ""),
                  NodeOfTwo(scratch, 1, port.number(), tag, ""));
  EXPECT_NE(zero.exit_code, 0);
  const std::string error = AdvisorError(zero);
  EXPECT_EQ(error, "advisor: no summary from node 1 (" + (shared / "nodes/node-1.json").string() +
                       ") in 3 s (--nodes-timeout): was advisor bisect run on every node with the "
                       "same --out?\n")
      << zero.err;
  EXPECT_FALSE(fs::exists(shared / "report.json")) << "no partial report";
  EXPECT_TRUE(fs::exists(shared / "nodes/node-0.json"));
  EXPECT_NE(one.exit_code, 0) << "node 1's rank lost its peer";
  EXPECT_EQ(ProcessesTagged(tag), 0) << "both launchers and both ranks are gone";
}

TEST(ScriptRanks, CtrlCEndsTheLauncherAndEveryRank) {
  const std::string tag = UniqueTag();
  const fs::path scratch = Scratch("ranks_interrupted_logs");
  ExpectInterruptLeavesNothing(SIGINT, "ranks_interrupted", TwoRanks(scratch, tag, "--epochs 1000"),
                               tag);
}

}  // namespace
}  // namespace advisor
