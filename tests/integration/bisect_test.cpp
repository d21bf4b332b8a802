// End to end: build/advisor bisects models it has never seen, exported by
// tests/models/make_models.py (the ctest fixture "test_models"), and names the planted module
// instance, phase and op; bad input gets one clear line, a non-zero exit and no report.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/integration/run_advisor.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;
using advisor::testing::CommandResult;
using advisor::testing::ReadFile;
using advisor::testing::RunCommand;
using nlohmann::json;

const std::string kModels = ADVISOR_TEST_MODELS_DIR;
const std::string kAdvisor = ADVISOR_BINARY;

fs::path Scratch(const std::string& name) {
  return advisor::testing::FreshFolder(ADVISOR_TEST_SCRATCH_DIR, name);
}

json Expected(const std::string& model) {
  return json::parse(ReadFile(kModels + "/" + model + ".expected.json"));
}

int Depth(const std::string& path) {
  return 1 + static_cast<int>(std::count(path.begin(), path.end(), '.'));
}

class PlantedHotspot : public ::testing::TestWithParam<std::string> {};

TEST_P(PlantedHotspot, BisectNamesTheInstancePhaseAndOp) {
  const std::string model = GetParam();
  const fs::path scratch = Scratch(model);
  const CommandResult run = RunCommand(kAdvisor + " bisect " + kModels + "/" + model +
                                           ".pt --out " + (scratch / "report").string(),
                                       scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = json::parse(ReadFile((scratch / "report" / "report.json").string()));
  const json expected = Expected(model);
  ASSERT_TRUE(report["hotspot"].is_object()) << report.dump(2);
  EXPECT_EQ(report["hotspot"]["path"], expected["path"]);
  EXPECT_EQ(report["hotspot"]["phase"], expected["phase"]);
  EXPECT_EQ(report["hotspot"]["op"], expected["op"]);
  // One profiled window per level plus the baseline: container groups reuse their window. The
  // others do not localise the time: those that followed the memory's holder off the levels'
  // path or named sync sites, and those a busy machine asks for (a level measured again, at
  // most two, and a look into a child the descent left), which the run counts apart.
  const json& run_info = report["run"];
  const int repeated = run_info["repeated_windows"].get<int>();
  EXPECT_LE(repeated, 2);
  EXPECT_LE(run_info["windows"].get<int>() - run_info["memory_windows"].get<int>() -
                run_info["site_windows"].get<int>() - repeated -
                run_info["look_ahead_windows"].get<int>(),
            Depth(expected["path"]) + 1);
  EXPECT_EQ(report["schema_version"], 1);
  for (const char* file : {"report.md", "report.html", "trace.json"}) {
    EXPECT_TRUE(fs::exists(scratch / "report" / file)) << file;
  }
  EXPECT_NE(run.out.find("hot spot: " + expected["path"].get<std::string>()), std::string::npos)
      << run.out;
  EXPECT_NE(run.err.find("[advisor] level 1"), std::string::npos) << "progress goes to stderr";
}

INSTANTIATE_TEST_SUITE_P(Models, PlantedHotspot,
                         ::testing::Values("repeated_type", "deep", "tuple_outputs"));

struct BadInput {
  std::string model;
  std::string message;  // what the one line must say
};

void PrintTo(const BadInput& bad, std::ostream* out) { *out << bad.model; }

class RejectsBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(RejectsBadInput, WithOneLineNamingTheFileAndNoReport) {
  const BadInput& bad = GetParam();
  const fs::path scratch = Scratch("bad_" + bad.model);
  const std::string model_path = kModels + "/" + bad.model + ".pt";
  const CommandResult run = RunCommand(
      kAdvisor + " bisect " + model_path + " -q --out " + (scratch / "report").string(),
      scratch.string());
  EXPECT_NE(run.exit_code, 0);
  EXPECT_LT(run.exit_code, 128) << "a crash, not an error exit: " << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find(model_path), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(bad.message), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(scratch / "report")) << "a failed run leaves no report folder";
}

INSTANTIATE_TEST_SUITE_P(
    Models, RejectsBadInput,
    ::testing::Values(BadInput{"not_torchscript", "not a TorchScript archive"},
                      BadInput{"truncated", "not a loadable TorchScript archive"},
                      BadInput{"no_workload", "has no advisor/workload.json"},
                      BadInput{"bad_json", "advisor/workload.json: not valid JSON"},
                      BadInput{"missing_fields", "field 'inputs' is missing"},
                      BadInput{"bad_shape", "module encoder.1: RuntimeError: mat1 and mat2"},
                      BadInput{"dict_output", "forward returned"},
                      BadInput{"zip_bomb", "advisor/workload.json\" expands to 67109115 bytes; "
                                           "at most 1048576 (1 MiB) of the workload are read"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.model; });

TEST(RejectsBadInput, MissingModelUnknownDeviceAndUnwritableOutput) {
  const fs::path scratch = Scratch("bad_args");
  const std::string model = kModels + "/deep.pt";
  CommandResult run = RunCommand(kAdvisor + " bisect /no/such/model.pt -q", scratch.string());
  EXPECT_EQ(run.err, "advisor: /no/such/model.pt: no such file\n");
  EXPECT_NE(run.exit_code, 0);

  run = RunCommand(kAdvisor + " bisect " + model + " --device tpu -q", scratch.string());
  EXPECT_EQ(run.err, "advisor: --device: \"tpu\" is not one of cpu|cuda\n");

  // A path under a regular file can never be created, even by root.
  const fs::path file = scratch / "a-file";
  std::ofstream(file.string()) << "x";
  run = RunCommand(kAdvisor + " bisect " + model + " -q --out " + (file / "report").string(),
                   scratch.string());
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find((file / "report").string()), std::string::npos) << run.err;
}

TEST(RejectsBadInput, SymbolicLinkLoopAndNamedPipeAsTheModel) {
  const fs::path scratch = Scratch("bad_model_paths");
  const std::string loop = (scratch / "loop.pt").string();
  fs::create_symlink(loop, loop);
  CommandResult run = RunCommand(kAdvisor + " bisect " + loop + " -q", scratch.string());
  EXPECT_EQ(run.err, "advisor: " + loop + ": is a symbolic link loop\n");
  EXPECT_EQ(run.exit_code, 1);

  // Opening a named pipe to read it would wait for a writer forever.
  const std::string pipe = (scratch / "pipe.pt").string();
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  run = RunCommand(kAdvisor + " bisect " + pipe + " -q", scratch.string());
  EXPECT_EQ(run.err, "advisor: " + pipe + ": is a named pipe (FIFO), not a regular file\n");
  EXPECT_EQ(run.exit_code, 1);
}

// A scripted torch.from_file wrote a file during a plain bisect, and nothing said a model is code.
TEST(Help, SaysThatAModelIsCode) {
  const fs::path scratch = Scratch("help");
  for (const char* command : {" bisect --help", " candidate --help"}) {
    const CommandResult run = RunCommand(kAdvisor + command, scratch.string());
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("A model file is code"), std::string::npos) << run.out;
  }
}

// CLI11 read a batch size beyond int64 as its largest value, silently.
TEST(RejectsBadInput, ABatchSizeThatDoesNotFitIsRefusedNamingTheOption) {
  const fs::path scratch = Scratch("bad_batch_size");
  const std::string model = kModels + "/deep.pt";
  CommandResult run = RunCommand(
      kAdvisor + " bisect " + model + " -q --batch-size 99999999999999999999", scratch.string());
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("--batch-size: must be an integer from 1 to 9223372036854775807, got "
                         "99999999999999999999"),
            std::string::npos)
      << run.err;
  run = RunCommand(kAdvisor + " bisect " + model + " -q --batch-size 999999999999",
                   scratch.string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "advisor: --batch-size 999999999999: 999999999999 x 3 x 32 x 32 elements are more "
            "than the 2147483648 (2^31) a workload tensor may have\n");
}

// A NaN loss gave a full report with no note of it.
TEST(NonFiniteLoss, IsADataQualityLineAndTheCandidateWritesNoLoss) {
  const fs::path scratch = Scratch("nan_loss");
  const std::string model = kModels + "/nan_loss.pt";
  CommandResult run =
      RunCommand(kAdvisor + " bisect " + model + " -q --out " + (scratch / "report").string(),
                 scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = json::parse(ReadFile((scratch / "report" / "report.json").string()));
  EXPECT_NE(report["data_quality"].dump().find("the loss was not finite (NaN or infinite) in "),
            std::string::npos)
      << report["data_quality"].dump();

  // The autotest fails a candidate whose process reports no loss: it is never verified.
  run = RunCommand(kAdvisor + " candidate " + model + " --steps 2 --warmup 1 --result " +
                       (scratch / "result.json").string(),
                   scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(json::parse(ReadFile((scratch / "result.json").string()))["loss"].is_null());
}

// A workload that runs out of memory in its steps gets a report of it, as a script does: the
// module its forward raised in and the request, with the fixes; exit 1 with one line. On a CPU
// the model raises the allocator's message itself (tests/models/make_models.py, OutOfMemory).
TEST(OutOfMemory, AWorkloadThatRunsOutGetsAReportOfWhereAndTheFixes) {
  const fs::path scratch = Scratch("out_of_memory");
  const std::string model = kModels + "/out_of_memory.pt";
  const CommandResult run =
      RunCommand(kAdvisor + " bisect " + model + " -q --out " + (scratch / "report").string(),
                 scratch.string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("(batch size 4), in the forward pass of big; the report of it is in " +
                         (scratch / "report" / "report.md").string()),
            std::string::npos)
      << run.err;
  const json report = json::parse(ReadFile((scratch / "report" / "report.json").string()));
  EXPECT_EQ(report["run"]["failure"], "out_of_memory");
  const json& oom = report["out_of_memory"];
  EXPECT_EQ(oom["path"], Expected("out_of_memory")["raises_in"]) << oom.dump();
  EXPECT_EQ(oom["phase"], "forward");
  EXPECT_DOUBLE_EQ(oom["requested_mb"].get<double>(), 2048.0);
  std::set<std::string> rules;
  for (const json& finding : report["findings"]) rules.insert(finding["rule"]);
  EXPECT_EQ(rules, (std::set<std::string>{"oom-activation-checkpointing", "oom-bf16-autocast",
                                          "oom-smaller-batch"}));
}

// A forward that never returns: the step timeout ends the run, bisect and candidate alike.
TEST(StepTimeout, AStepThatNeverReturnsEndsTheRunWithOneLine) {
  const fs::path scratch = Scratch("step_timeout");
  const std::string model = kModels + "/hangs_in_forward.pt";
  const std::string line =
      "advisor: " + model + ": a training step did not finish within 2 s (--step-timeout)\n";
  CommandResult run = RunCommand(kAdvisor + " bisect " + model + " -q --step-timeout 2 --out " +
                                     (scratch / "report").string(),
                                 scratch.string());
  EXPECT_EQ(run.exit_code, 124);
  EXPECT_EQ(run.err, line);
  EXPECT_FALSE(fs::exists(scratch / "report")) << "an abandoned run leaves no report folder";

  run = RunCommand(kAdvisor + " candidate " + model + " --step-timeout 2 --result " +
                       (scratch / "result.json").string(),
                   scratch.string());
  EXPECT_EQ(run.exit_code, 124);
  EXPECT_EQ(run.err, line);
  EXPECT_FALSE(fs::exists(scratch / "result.json"));
}

// Ctrl-C during a run left an empty report folder behind.
TEST(Interrupt, LeavesNoReportFolderAndDiesOfTheSignal) {
  const fs::path scratch = Scratch("interrupt");
  const std::string out = (scratch / "report").string();
  const CommandResult run = RunCommand(
      kAdvisor + " bisect " + kModels + "/hangs_in_forward.pt -q --out " + out + " & advisor=$!; " +
          "i=0; while [ ! -e " + out + "/.advisor.lock ] && [ $i -lt 600 ]; do " +
          "sleep 0.1; i=$((i+1)); done; sleep 1; kill -INT $advisor; wait $advisor; echo $?",
      scratch.string());
  EXPECT_EQ(run.out, "130\n") << run.err;
  EXPECT_FALSE(fs::exists(out));
}

// The report folder is checked before minutes of profiling: a read-only one fails at once.
TEST(RejectsBadInput, AReportFolderThatCannotBeWrittenFailsBeforeTheFirstWindow) {
  const fs::path scratch = Scratch("read_only_out");
  const CommandResult run =
      RunCommand(kAdvisor + " bisect " + kModels + "/deep.pt --out /proc/self", scratch.string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("advisor: cannot write to /proc/self: ", 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "no progress line: " << run.err;
}

// Rules are untrusted: one that is broken is left out with every problem named, and what a
// hostile one says reaches neither the terminal nor report.md as an escape sequence.
TEST(UntrustedRules, ABrokenRuleIsLeftOutAndAHostileMessageIsPrintedHarmlessly) {
  const fs::path scratch = Scratch("untrusted_rules");
  const fs::path rules = scratch / "rules";
  fs::create_directories(rules);
  std::ofstream(rules / "broken.lua") << "return {id = \"broken\", titel = \"typo\"}\n";
  std::ofstream(rules / "hostile.lua")
      << "return {id = \"hostile\", title = \"Hostile \\27]0;pwned\\7\", check = function()\n"
         "  return {{severity = 'high', message = 'owned \\27]0;pwned\\7\\27[2J\\r\\255',\n"
         "           evidence = 'e'}} end}\n";
  const std::string report = (scratch / "report").string();
  const CommandResult run = RunCommand(kAdvisor + " bisect " + kModels + "/deep.pt -q --rules " +
                                           rules.string() + " --out " + report,
                                       scratch.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("advisor: rule left out: " + (rules / "broken.lua").string() +
                         ":1: unknown field 'titel'"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("broken.lua:1: missing title"), std::string::npos) << run.err;
  EXPECT_NE(
      run.out.find("finding [high] hostile: owned \\x1b]0;pwned\\x07\\x1b[2J\\x0d\xef\xbf\xbd"),
      std::string::npos)
      << run.out;
  const std::string markdown = ReadFile(report + "/report.md");
  for (const std::string& text : {run.out, run.err, markdown}) {
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    EXPECT_EQ(text.find('\r'), std::string::npos);
  }
  const json written = json::parse(ReadFile(report + "/report.json"));
  EXPECT_NE(written["data_quality"].dump().find("rule left out: "), std::string::npos);

  const CommandResult listed =
      RunCommand(kAdvisor + " rules list --rules " + rules.string(), scratch.string());
  EXPECT_NE(listed.out.find("Hostile \\x1b]0;pwned\\x07"), std::string::npos) << listed.out;
  EXPECT_EQ(listed.out.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace advisor
