// End-to-end: build/advisor analyze on traces recorded with torch.profiler
// (tests/data/traces/, scripts/record_traces.py) and on allocator snapshots
// (tests/data/snapshots/, tests/memory_snapshot/make_snapshots.py), as a user runs it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "tests/integration/run_advisor.h"

namespace advisor::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kTraces = ADVISOR_TEST_TRACES_DIR;
const std::string kSnapshots = ADVISOR_TEST_SNAPSHOTS_DIR;
const std::string kCompiled = ADVISOR_TEST_COMPILED_DIR;

class AnalyzeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = fs::path(ADVISOR_TEST_SCRATCH_DIR) /
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }

  CommandResult Analyze(const std::string& arguments) {
    return RunCommand(std::string(ADVISOR_BINARY) + " analyze " + arguments + " --out " +
                          (scratch_ / "report").string() + " -q",
                      scratch_.string());
  }

  json Report() const {
    return json::parse(ReadFile((scratch_ / "report" / "report.json").string()));
  }

  // advisor analyze on a recording of tests/data/compiled/ (NAME_trace.json.gz with the
  // provenance NAME_provenance.json recorded beside it): the report, whose compiled_kernels has
  // each step's forward and backward graph call of its 2 steps, and parts that add up to the
  // compiled time; null where advisor failed.
  json AnalyzeRecordedCompile(const std::string& name) {
    const CommandResult result =
        Analyze(kCompiled + "/" + name + "_trace.json.gz " + "--compiled-provenance " + kCompiled +
                "/" + name + "_provenance.json");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    if (result.exit_code != 0) return nullptr;
    const json report = Report();
    EXPECT_TRUE(report.contains("compiled_kernels")) << report.dump();
    const json& compiled = report.value("compiled_kernels", json::object());
    EXPECT_EQ(compiled.value("steps", 0), 2);
    EXPECT_EQ(compiled.value("calls", 0), 4);
    const double parts = compiled.value("attributed_ms", 0.0) + compiled.value("unnamed_ms", 0.0) +
                         compiled.value("nodeless_ms", 0.0) + compiled.value("unheld_ms", 0.0);
    EXPECT_NEAR(parts, compiled.value("compiled_ms", 0.0), 1e-6) << compiled.dump();
    return report;
  }

  fs::path scratch_;
};

std::set<std::string> FindingRules(const json& report) {
  std::set<std::string> rules;
  for (const json& finding : report.at("findings")) rules.insert(finding.at("rule"));
  return rules;
}

// Every single-rank trace of the manifest names the rule advisor bisect raises on its zoo case;
// a clean case raises no high finding.
TEST_F(AnalyzeTest, NamesTheFindingsBisectRaisesOnTheZooCases) {
  const json manifest = json::parse(ReadFile(kTraces + "/torch-1.13-cpu/manifest.json"));
  int checked = 0;
  for (const json& trace : manifest.at("traces")) {
    if (trace.contains("world_size")) continue;
    const CommandResult result =
        Analyze(kTraces + "/torch-1.13-cpu/" + trace.at("trace").get<std::string>());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const json report = Report();
    EXPECT_EQ(report.at("run").at("mode"), "trace");
    const json& expected = trace.at("expected");
    if (expected.value("clean", false)) {
      for (const json& finding : report.at("findings")) {
        EXPECT_NE(finding.at("severity"), "high") << trace.at("case") << ": " << finding.dump();
      }
    } else {
      const std::string rule = expected.at("rule");
      EXPECT_EQ(FindingRules(report).count(rule), 1u)
          << trace.at("case") << ": " << report.at("findings").dump();
      for (const json& finding : report.at("findings")) {
        if (finding.at("rule") != rule) continue;
        EXPECT_EQ(finding.at("recipe"), expected.at("recipe"));
        if (expected.contains("finding_path")) {
          EXPECT_EQ(finding.at("path"), expected.at("finding_path"));
        }
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST_F(AnalyzeTest, AFolderOfRankTracesNamesThePlantedStraggler) {
  const CommandResult result = Analyze(kTraces + "/torch-1.13-cpu/ranks/straggler");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("straggler: rank 1"), std::string::npos) << result.out;
  const json report = Report();
  const json& distributed = report.at("distributed");
  ASSERT_TRUE(distributed.is_object());
  EXPECT_EQ(distributed.at("ranks").size(), 2u);
  EXPECT_EQ(distributed.at("straggler").at("rank"), 1);
  EXPECT_EQ(distributed.at("straggler").at("path"), "blocks.2.mixer");
  // Traces have no steps timed without a profiler: nothing to check the straggler against.
  EXPECT_TRUE(distributed.at("straggler").at("holds_unprofiled").is_null());
  EXPECT_TRUE(distributed.at("ranks").at(1).at("unprofiled").is_null());
  EXPECT_EQ(FindingRules(report).count("straggler-rank"), 1u) << report.at("findings").dump();
  const std::string markdown = ReadFile((scratch_ / "report" / "report.md").string());
  EXPECT_NE(markdown.find("## Ranks"), std::string::npos);
  EXPECT_NE(markdown.find("Rank 1 is the straggler"), std::string::npos);
}

// --verbose says where a long run's time and memory went, stage by stage, -q or not.
TEST_F(AnalyzeTest, VerboseSaysWhatEachStageTookAndTheMemoryHeldAfterIt) {
  const CommandResult result =
      RunCommand(std::string(ADVISOR_BINARY) + " analyze " + kTraces +
                     "/torch-1.13-cpu/single/mnist_style-stack.json.gz --out " +
                     (scratch_ / "report").string() + " -q --verbose",
                 scratch_.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* stage : {"read", "records", "window", "report", "rules", "report files"}) {
    const std::regex line("(^|\n)\\[advisor\\] " + std::string(stage) +
                          ": [0-9]+ ms \\(CPU [0-9]+ ms\\); resident [0-9]+ MB, peak [0-9]+ MB\n");
    EXPECT_TRUE(std::regex_search(result.err, line)) << stage << " in:\n" << result.err;
  }
  // The records stage's one-thread part, after the stage's line.
  EXPECT_TRUE(std::regex_search(
      result.err, std::regex("\\[advisor\\] records: [^\n]*\n\\[advisor\\] records on one "
                             "thread, CPU: join [0-9]+ ms, host links [0-9]+ ms, GPU links [0-9]+ "
                             "ms, steps [0-9]+ ms\n")))
      << result.err;
  // The trace is a .json.gz: the inflater that read it is named (zlib's or ISA-L's, as built).
  EXPECT_TRUE(std::regex_search(result.err, std::regex("\n\\[advisor\\] inflater: (ISA-L|zlib "
                                                       "[0-9.]+[^\n]*)\n")))
      << result.err;
  EXPECT_EQ(result.err.find("reading"), std::string::npos) << "-q still quiets the progress";
}

TEST_F(AnalyzeTest, TheReportSaysWhichSectionsATraceCannotFill) {
  ASSERT_EQ(Analyze(kTraces + "/torch-1.13-cpu/single/augment_stall-labels.json.gz").exit_code, 0);
  const json report = Report();
  EXPECT_TRUE(report.at("bisection").is_null());
  EXPECT_TRUE(report.at("hotspot").is_null());
  EXPECT_TRUE(report.at("gpu").is_null());
  std::set<std::string> absent;
  for (const json& section : report.at("absent")) absent.insert(section.at("section"));
  EXPECT_EQ(absent, (std::set<std::string>{"bisection", "hotspot", "cross_check", "gpu", "memory",
                                           "fixes"}));
  const std::string markdown = ReadFile((scratch_ / "report" / "report.md").string());
  EXPECT_EQ(markdown.find("## Bisection path"), std::string::npos);
  EXPECT_NE(markdown.find("### Not in this report"), std::string::npos);
  EXPECT_FALSE(fs::exists(scratch_ / "report" / "trace.json"));
}

TEST_F(AnalyzeTest, ABadFileGetsOneLineWithTheByteOffsetAndNoReport) {
  const std::string bad = (scratch_ / "bad.json").string();
  std::ofstream(bad) << "{\"traceEvents\": [{\"ph\": \"X\"} {}]}";
  const CommandResult result = Analyze(bad);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "advisor: " + bad +
                            ": byte 29: expected ',' or ']' after an event, "
                            "found '{'\n");
  EXPECT_FALSE(fs::exists(scratch_ / "report"));
}

// A compiled model's trace with the provenance recorded while inductor compiled it
// (tests/data/compiled/): the graphs' calls' matrix multiplies given to the instances of their
// nodes, forward and backward, the drop's deterministic scatter by its IR node's origins, and
// data_quality saying how much was attributed.
TEST_F(AnalyzeTest, ACompiledModelsKernelTimeGoesToItsInstancesByProvenance) {
  const json report = AnalyzeRecordedCompile("mlp_cpu");
  ASSERT_TRUE(report.contains("compiled_kernels"));
  const json& compiled = report.at("compiled_kernels");
  EXPECT_EQ(compiled.at("work"), "host_ops");
  EXPECT_EQ(compiled.at("kernels"), 2 * (4 + 8));
  EXPECT_EQ(compiled.at("unnamed_kernels"), 0);
  EXPECT_EQ(compiled.at("nodeless_kernels"), 0);
  // All but the fifth of the scatter's nodes that no instance holds.
  EXPECT_GT(compiled.at("attributed_share").get<double>(), 0.9);
  EXPECT_LT(compiled.at("attributed_share").get<double>(), 1.0);
  EXPECT_GT(compiled.at("origins_ms").get<double>(), 0) << "the scatter's, by its IR origins";
  std::map<std::string, json> instances;
  for (const json& instance : compiled.at("instances")) {
    instances[instance.at("path").get<std::string>()] = instance;
  }
  for (const char* path :
       {"blocks.0.fc1", "blocks.0.fc2", "blocks.1.fc1", "blocks.1.fc2", "drop"}) {
    ASSERT_EQ(instances.count(path), 1u) << path << " in " << compiled.dump();
    EXPECT_GT(instances[path].at("forward_ms").get<double>(), 0) << path;
    EXPECT_GT(instances[path].at("backward_ms").get<double>(), 0) << path;
  }
  bool said = false;
  for (const json& line : report.at("data_quality")) {
    said = said || line.get<std::string>().find(
                       "was attributed to module instances from "
                       "inductor's kernel provenance") != std::string::npos;
  }
  EXPECT_TRUE(said) << report.at("data_quality").dump();
}

// The compiled seed ViT on an H200 (tests/data/compiled/vit_h200_*): its triton kernels matched
// by name and its extern calls by order give nearly all the compiled graphs' GPU time to module
// instances, forward and backward; the kernel fused across patch_embed, patch_drop's gather and
// the first norm is split and counted as shared; the deterministic scatter of patch_drop's
// backward (an extern call inductor writes no Source Nodes comment for) is patch_drop's by its IR
// node's origins (a recording before the probe read them left its 4.6 ms a step in no instance).
TEST_F(AnalyzeTest, TheCompiledSeedsGpuKernelsGoToTheirInstancesByProvenance) {
  const json report = AnalyzeRecordedCompile("vit_h200");
  ASSERT_TRUE(report.contains("compiled_kernels"));
  const json& compiled = report.at("compiled_kernels");
  EXPECT_EQ(compiled.at("work"), "gpu_kernels");
  const double share = compiled.at("attributed_share").get<double>();
  EXPECT_GT(share, 0.98);
  EXPECT_GT(compiled.at("origins_ms").get<double>(), 3.0) << "the scatter's kernels";
  EXPECT_EQ(compiled.at("nodeless_ms"), 0.0);
  EXPECT_GT(compiled.at("backward_attributed_ms").get<double>(),
            0.9 * compiled.at("backward_ms").get<double>());
  EXPECT_GT(compiled.at("shared_ms").get<double>(), 0);
  std::map<std::string, double> by_top_level;  // ms a step, forward and backward
  for (const json& instance : compiled.at("instances")) {
    const std::string path = instance.at("path").get<std::string>();
    by_top_level[path.substr(0, path.find('.'))] +=
        instance.at("forward_ms").get<double>() + instance.at("backward_ms").get<double>();
  }
  const double compiled_ms = compiled.at("compiled_ms").get<double>();
  EXPECT_GT(by_top_level["blocks"], 0.9 * compiled_ms) << "the twelve blocks' GEMMs";
  EXPECT_GT(by_top_level["patch_drop"], 3.0) << "its sort and gather kernels, and its scatter";
  EXPECT_GT(by_top_level["patch_embed"], 0);
}

TEST_F(AnalyzeTest, ABadProvenanceFileIsOneLineAndNoReport) {
  const std::string bad = (scratch_ / "provenance.json").string();
  std::ofstream(bad) << R"({"graphs": [{"direction": "forward", "extern_calls": [],)"
                     << R"( "kernels": [{"name": "k", "nodes": 1, "instances": [{"path": "a",)"
                     << R"( "nodes": 3}]}]}]})";
  const CommandResult result =
      Analyze(kCompiled + "/mlp_cpu_trace.json.gz --compiled-provenance " + bad);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "advisor: " + bad +
                            ": field 'graphs[0].kernels[0].instances[0].nodes' makes the "
                            "instances hold more than the kernel's 1 nodes\n");
  EXPECT_FALSE(fs::exists(scratch_ / "report"));
}

// A trace of an eager model holds no compiled call: nothing is attributed, and the report says
// why instead of showing an empty section.
TEST_F(AnalyzeTest, AProvenanceForATraceWithoutCompiledCallsIsSaidAndLeftOut) {
  const json manifest = json::parse(ReadFile(kTraces + "/torch-1.13-cpu/manifest.json"));
  const std::string trace =
      kTraces + "/torch-1.13-cpu/" + manifest.at("traces").at(0).at("trace").get<std::string>();
  const CommandResult result =
      Analyze(trace + " --compiled-provenance " + kCompiled + "/mlp_cpu_provenance.json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json report = Report();
  EXPECT_FALSE(report.contains("compiled_kernels"));
  bool said = false;
  for (const json& line : report.at("data_quality")) {
    said =
        said || line.get<std::string>().find("holds no compiled graph's call") != std::string::npos;
  }
  EXPECT_TRUE(said) << report.at("data_quality").dump();
}

// A FIFO opened for reading waits for a writer: analyze hung forever, holding the --out lock.
// `timeout` ends the command if it does, so the regression fails instead of hanging the suite.
TEST_F(AnalyzeTest, AFifoIsRefusedByNameWhetherGivenOrInAFolder) {
  const std::string pipe = (scratch_ / "trace.json").string();
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  CommandResult result = RunCommand("timeout 60 " + std::string(ADVISOR_BINARY) + " analyze " +
                                        pipe + " --out " + (scratch_ / "report").string() + " -q",
                                    scratch_.string());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "advisor: " + pipe + ": is a named pipe (FIFO), not a regular file\n");
  EXPECT_FALSE(fs::exists(scratch_ / "report"));

  // In a folder of rank traces it was silently left out; now the run stops, naming it.
  fs::copy_file(kTraces + "/torch-1.13-cpu/ranks/straggler/rank1.json.gz",
                scratch_ / "rank1.json.gz");
  result = Analyze(scratch_.string());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "advisor: " + pipe + ": is a named pipe (FIFO), not a regular file\n");
  EXPECT_FALSE(fs::exists(scratch_ / "report"));
}

TEST_F(AnalyzeTest, ASymbolicLinkLoopIsNotReportedAsMissing) {
  const std::string loop = (scratch_ / "loop.json").string();
  fs::create_symlink(loop, loop);
  const CommandResult result = Analyze(loop);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "advisor: " + loop + ": is a symbolic link loop\n");
}

// A newline in a rule's message (or a module name that a message quotes) printed a line of its
// own: "finding [high] ..." that no rule raised. The terminal gets it escaped; report.json the
// real text.
TEST_F(AnalyzeTest, UntrustedTextCannotForgeALineOnTheTerminal) {
  fs::create_directories(scratch_ / "rules");
  std::ofstream(scratch_ / "rules" / "forge.lua")
      << "return {id = \"forge\", title = \"forges lines\", check = function(facts)\n"
      << "  return {{severity = \"low\", evidence = \"e\",\n"
      << "           message = \"ok\\nfinding [high] forged: \\u{202E}txt.exe\"}}\n"
      << "end}\n";
  const CommandResult result =
      Analyze(kTraces + "/torch-1.13-cpu/ranks/straggler/rank0.json.gz --rules " +
              (scratch_ / "rules").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.find("\nfinding [high] forged"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("finding [low] forge: ok\\x0afinding [high] forged: \\u202etxt.exe\n"),
            std::string::npos)
      << result.out;
  bool kept = false;
  const json report = Report();
  for (const json& finding : report.at("findings")) {
    kept = kept ||
           finding.at("message").get<std::string>() == "ok\nfinding [high] forged: \u202etxt.exe";
  }
  EXPECT_TRUE(kept) << "report.json keeps the rule's own text";
}

// `[]`, or a trace whose every event is malformed, exited 0 with "0.000 ms median over 0 steps".
TEST_F(AnalyzeTest, ATraceWithoutUsableEventsGetsOneLineAndNoReport) {
  const std::map<std::string, std::string> traces = {
      {"[]", "no step to analyse: the trace holds no events"},
      {"[{\"ph\": \"X\"}, {\"ph\": \"X\"}]",
       "no step to analyse: all 2 of its events are malformed (the first: byte 12: the event has "
       "no \"ts\"; the event is skipped)"},
      {"{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"x\", \"ts\": 1}]}",
       "no step to analyse: none of its 1 events is an op or a ProfilerStep#N range"}};
  for (const auto& [text, problem] : traces) {
    const std::string trace = (scratch_ / "trace.json").string();
    std::ofstream(trace) << text;
    const CommandResult result = Analyze(trace);
    EXPECT_EQ(result.exit_code, 1) << text;
    EXPECT_EQ(result.err, "advisor: " + trace + ": " + problem + "\n");
    EXPECT_FALSE(fs::exists(scratch_ / "report")) << text;
  }
}

// 4,000 nested module ranges (397 KB) took 7.8 s and 637 MB and wrote a 53 MB report.json.
TEST_F(AnalyzeTest, ModuleRangesNestedTooDeepGetOneLineAndNoReport) {
  const int depth = 4000;
  std::ofstream trace(scratch_ / "deep.json");
  trace << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", "
        << "\"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": " << 4 * depth
        << "}";
  for (int i = 0; i < depth; ++i) {
    trace << ", {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: M_" << i
          << "\", \"pid\": 1, \"tid\": 1, \"ts\": " << 1 + i << ", \"dur\": " << 2 * depth - 2 * i
          << "}";
  }
  trace << "]}";
  trace.close();
  const CommandResult result = Analyze((scratch_ / "deep.json").string());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err.rfind("advisor: " + (scratch_ / "deep.json").string() +
                                 ": module ranges nest deeper than 128 levels (at 'M_0.M_1.",
                             0),
            0u)
      << result.err;
  EXPECT_FALSE(fs::exists(scratch_ / "report"));
}

// `--out ""` (an unset variable) silently meant the current folder.
TEST_F(AnalyzeTest, AnEmptyOutPathIsRefused) {
  const CommandResult result =
      RunCommand("cd " + scratch_.string() + " && " + ADVISOR_BINARY + " analyze " + kTraces +
                     "/torch-1.13-cpu/ranks/straggler/rank0.json.gz --out '' -q",
                 scratch_.string());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "advisor: --out: the path is empty; name a folder (--out . for the current one)\n");
  EXPECT_FALSE(fs::exists(scratch_ / "report.json"));
}

// 128 nested ranges of 1,000-byte names around 2,000 ops, a 327 KB trace: report.json spelt each
// module's path whole, 8.4 MB. A path longer than 512 bytes is written as its two ends.
TEST_F(AnalyzeTest, DeeplyNestedLongNamesMakeAReportNoLargerThanTheTrace) {
  const int depth = 128, ops = 2000, span = 2 * depth + 2 * ops + 10;
  const fs::path path = scratch_ / "deep.json";
  {
    std::ofstream trace(path);
    trace << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", "
          << "\"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": "
          << span + 10 << "}";
    for (int i = 0; i < depth; ++i) {
      std::string name = "M" + std::to_string(i) + "_";
      name.resize(1000, 'x');
      trace << ", {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: " << name
            << "\", \"pid\": 1, \"tid\": 1, \"ts\": " << 1 + i << ", \"dur\": " << span - 2 * i
            << "}";
    }
    for (int i = 0; i < ops; ++i) {
      trace << ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, "
            << "\"tid\": 1, \"ts\": " << depth + 2 + 2 * i << ", \"dur\": 1}";
    }
    trace << "]}";
  }
  const CommandResult result = Analyze(path.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_LT(fs::file_size(scratch_ / "report" / "report.json"), fs::file_size(path));
  const json modules = Report().at("modules");
  ASSERT_EQ(modules.size(), 128u);
  std::size_t elided = 0;
  for (const json& module : modules) {
    const std::string shown = module.at("path");
    EXPECT_LE(shown.size(), 512u) << shown.substr(0, 80);
    if (shown.find("…(") != std::string::npos) ++elided;
  }
  EXPECT_EQ(elided, 128u) << "every path: the outermost alone is 1,000 bytes";
  EXPECT_GT(modules.back().at("forward_ms").get<double>(), 0) << "the ops' module is timed";
}

TEST_F(AnalyzeTest, AFolderWithoutTracesIsRefused) {
  const CommandResult result = Analyze(scratch_.string());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("holds no trace"), std::string::npos) << result.err;
}

TEST_F(AnalyzeTest, ASnapshotGivesItsPeakInTheMemorySection) {
  const CommandResult result = Analyze(kSnapshots + "/hand_step.pickle");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("peak: 10.500 MB allocated in the forward pass, 20.000 MB reserved "
                             "then; decoder holds the most\n",
                             0),
            0u)
      << result.out;
  const json report = Report();
  EXPECT_EQ(report.at("run").at("mode"), "snapshot");
  EXPECT_TRUE(report.at("step").is_null());
  const json& peak = report.at("memory").at("peak");
  EXPECT_DOUBLE_EQ(peak.at("mb").get<double>(), 10.5);
  EXPECT_EQ(peak.at("path"), "decoder");
  EXPECT_EQ(report.at("memory").at("modules").size(), 2u);
  EXPECT_EQ(report.at("memory").at("history").at("end_state").at("matches"), true);
  const std::string markdown = ReadFile((scratch_ / "report" / "report.md").string());
  EXPECT_NE(markdown.find("## Memory\n"), std::string::npos);
  EXPECT_EQ(markdown.find("## Step breakdown"), std::string::npos);
  const std::string html = ReadFile((scratch_ / "report" / "report.html").string());
  EXPECT_NE(html.find("<svg class=\"chart memory-chart\""), std::string::npos);
}

// A pickle can run code when Python loads it; advisor reads only plain data and says which
// opcode it refused, leaving no report. The commands run in the scratch folder, where a pickle
// that ran its os.system would leave advisor-pickle-ran-code.
TEST_F(AnalyzeTest, AHostileSnapshotIsOneLineNoReportAndNoCodeRun) {
  const std::map<std::string, std::string> problems = {
      {"global_os_system.pickle", ": byte 2: opcode GLOBAL (0x63) names a class or a function"},
      {"stack_global_in_snapshot.pickle", ": byte 872: opcode STACK_GLOBAL (0x93) names"},
      {"deep_nesting.pickle", ": byte 205: containers nest deeper than 64 levels"},
      {"huge_length.pickle", ": byte 2: BINUNICODE8 needs 4611686018427387904 bytes"},
      {"truncated.pickle", ": byte 2: a frame of 2054 bytes runs past the end of the file"},
      {"not_a_snapshot.pickle", ": not a memory snapshot: the pickle holds a list"},
      {"wrong_type.pickle", ": 'device_traces[0][1].size' must be an int, got str"}};
  for (const auto& [name, problem] : problems) {
    const std::string path = kSnapshots + "/hostile/" + name;
    const CommandResult result = RunCommand("cd " + scratch_.string() + " && " + ADVISOR_BINARY +
                                                " analyze " + path + " --out report -q",
                                            scratch_.string());
    EXPECT_EQ(result.exit_code, 1) << name;
    EXPECT_EQ(result.err.rfind("advisor: " + path + problem, 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_FALSE(fs::exists(scratch_ / "report")) << name;
  }
  EXPECT_FALSE(fs::exists(scratch_ / "advisor-pickle-ran-code"));
}

TEST_F(AnalyzeTest, OneSnapshotAtATime) {
  const CommandResult result =
      Analyze(kSnapshots + "/hand_step.pickle " + kSnapshots + "/training_steps.pickle");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "advisor: advisor analyze reads one snapshot at a time: give its .pickle alone\n");
  EXPECT_FALSE(fs::exists(scratch_ / "report"));
}

}  // namespace
}  // namespace advisor::testing
