#include "engine/cli/bisect_command.h"

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "engine/cli/autotest_step.h"
#include "engine/cli/node_step.h"
#include "engine/cli/report_step.h"
#include "engine/cli/torch_commands.h"
#include "engine/report/chrome_trace.h"
#include "engine/report/compiled_kernels_section.h"
#include "engine/report/format.h"
#include "engine/report/report_text.h"
#include "engine/rules/rules_commands.h"
#include "engine/script/code_change.h"
#include "engine/torch/torchscript_source.h"
#include "engine/util/cpu_pressure.h"
#include "engine/util/data_dir.h"
#include "engine/util/duration.h"
#include "engine/util/printable_text.h"

namespace advisor {
namespace {

std::string DefaultModel() {
  const std::string demo_dir = FindDataDir("demo");
  return demo_dir.empty() ? "" : demo_dir + "/demo.pt";
}

void PrintSummary(const RunReport& report, const std::string& out_dir) {
  std::ostringstream line;
  if (report.hotspot) {
    const Hotspot& hot = *report.hotspot;
    line << "hot spot: " << (hot.path.empty() ? "the whole model" : PrintableLine(hot.path))
         << " -> " << PrintableLine(hot.op);
    // A generated kernel's name is long: the ops it fused are what a person reads for.
    if (!hot.fused_ops.empty()) line << " [fused " << PrintableLine(hot.fused_ops) << "]";
    line << " (" << hot.phase << ", " << FormatNumber(hot.ms) << " ms/step, "
         << static_cast<int>(hot.share * 100 + 0.5) << "% of the step)";
    if (hot.source) line << " at " << PrintableLine(hot.source->file) << ":" << hot.source->line;
    if (hot.confidence == "low") line << "\n  " << LowConfidenceSentence(report);
  } else {
    line << "no module stands out: see the bisection table";
    if (!report.doubts.empty()) line << "\n  " << LowConfidenceSentence(report);
  }
  std::cout << line.str() << "\n";
  PrintStraggler(report);
  PrintFindingsAndReport(report, out_dir, /*with_trace=*/true);
}

}  // namespace

void AddBisectCommand(CLI::App& app, BisectCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "bisect", kBisectDescription);
  command->footer(kModelIsCode);
  command->add_option("model", options.model.model_path,
                      "model.pt with advisor/workload.json inside (default: the bundled demo); a "
                      "model file is code, as a script is: run only ones you trust");
  command->add_option("--out", options.out_dir, "report directory")->capture_default_str();
  options.workload.AddTo(*command);
  command->add_option("--warmup", options.settings.warmup_steps, "discarded steps per window")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--steps", options.settings.window_steps, "profiled steps per window")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--max-depth", options.settings.max_depth, "deepest level to examine")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command->add_flag("--jit-optimize", options.model.jit_optimize,
                    "let the TorchScript executor fuse and specialise (default off: eager-like "
                    "execution, as the model runs in Python; docs/bisect.md)");
  command->add_option("--rules", options.rule_dirs, "add the rules in DIR (repeatable)");
  command->add_flag("--let-run", options.let_run,
                    "script mode: let the script train on to its end once the bisection is done "
                    "(default: advisor ends it)");
  command->add_flag("-q,--quiet", options.quiet, "no progress on stderr");
  command->add_flag("--autotest", options.autotest,
                    "try the recipes the findings name: check numerics, benchmark each against "
                    "the baseline in separate processes, report the measured result "
                    "(docs/recipes.md)");
  command->add_option("--autotest-rounds", options.autotest_rounds,
                      "the most A/B rounds per candidate (baseline and candidate processes, "
                      "alternating); rounds stop as soon as the speedup's 95% interval decides, "
                      "and 2 is the fewest that can")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  command->add_option("--autotest-budget", options.autotest_budget,
                      "the longest the whole autotest may take, e.g. 90s, 10m, 1h30m (default: "
                      "no limit); candidates it leaves no time for are skipped and say so")
      ->check([](const std::string& text) {
        return ParseDuration(text) ? std::string()
                                   : "not a duration like 90s, 10m or 1h30m: " + text;
      });
  command->add_option("--save-fixed", options.save_fixed_dir,
                      "with --autotest on a model.pt: save the model of each verified TorchScript "
                      "rewrite (and of their verified combination) into DIR, a new or empty "
                      "folder, with a README.md saying what each file is (docs/recipes.md)")
      ->type_name("DIR");
  command->add_option("--nodes-timeout", options.nodes_timeout_s,
                      "script mode, a job on several nodes (torchrun --nnodes N): how long each "
                      "node's advisor waits for the others once its own bisection is done, in "
                      "seconds (docs/script-mode.md)")
      ->capture_default_str()
      ->check(CLI::Range(1, 24 * 3600));
}

namespace {

// The rules' findings, each with its line in the user's code: the same for every front door.
// `rule_problems`: the rule files left out, for data_quality. A script door looks its lines up
// in the running script, so it concludes before ending it.
void Conclude(const RuleSet& rules, const std::vector<std::string>& rule_problems,
              BisectOutcome& outcome) {
  RunReport& report = outcome.report;
  report.data_quality.insert(report.data_quality.end(), rule_problems.begin(),
                             rule_problems.end());
  ApplyRules(rules, ReadRunEnvironment(), report);
  LocateFindings(report.findings, report.hotspot, outcome.windows, outcome.locate);
  SuggestFindingChanges(report.findings, report.run.mode);
}

// A run that died of an out-of-memory error: the report is of that failure (the rules weigh
// its fixes), with what the run measured before it; the sections it never reached are absent.
// With --autotest, the fixes the findings offer run alone (no baseline fits) into `fixes`. One
// line says where the report is, and which fix fits, if any; advisor exits 1: the run failed.
int ReportOutOfMemory(const BisectCommandOptions& options, RunReport report,
                      const std::string& what, const RuleSet& rules,
                      const std::vector<std::string>& rule_problems, ReportDir& report_dir) {
  const char* reason = "the run ran out of memory before advisor measured it";
  for (const char* section :
       {"step", "bisection", "hotspot", "cross_check", "modules", "ops", "gpu", "data"}) {
    report.absent.push_back({section, reason});
  }
  BisectOutcome outcome;
  outcome.report = std::move(report);
  Conclude(rules, rule_problems, outcome);
  if (options.autotest) {
    RunOutOfMemoryFixesStep(options, outcome.report);
  } else {
    outcome.report.absent.push_back({"fixes", "the run ran out of memory; --autotest runs the "
                                              "fixes its findings offer, each alone"});
  }
  WriteReportFiles(report_dir, outcome.report, std::nullopt);
  const std::string fixes = OutOfMemoryFixesSentence(outcome.report.fixes, kPlainText);
  std::cerr << "advisor: " << what << ", "
            << PrintableLine(OutOfMemoryWhere(*outcome.report.out_of_memory, kPlainText))
            << "; the report of it is in " << report_dir.path() << "/report.md"
            << (fixes.empty() ? "" : ". " + PrintableLine(fixes)) << std::endl;
  return 1;
}

// The autotest where asked, and the report folder: the same for every front door.
int Report(BisectCommandOptions& options, BisectOutcome& outcome, ReportDir& report_dir,
           FixedModelsDir* fixed) {
  RunReport& report = outcome.report;
  if (options.autotest) RunAutotestStep(options, report, fixed);

  std::ostringstream trace;
  WriteChromeTrace(outcome.windows, report, trace);
  WriteReportFiles(report_dir, report, trace.str());
  PrintSummary(report, report_dir.path());
  return 0;
}

Progress ProgressOnStderr(const BisectCommandOptions& options) {
  return [quiet = options.quiet](const std::string& line) {
    if (!quiet) std::cerr << "[advisor] " << PrintableLine(line) << std::endl;
  };
}

// The settings as given, with this machine's load measured: both doors' windows are judged by
// the CPU time other processes took from them (engine/util/cpu_pressure.h).
BisectSettings SettingsOnThisMachine(BisectSettings settings) {
  settings.cpu_stall_seconds = [] { return CpuStallSeconds(); };
  settings.others_cpu_seconds = [] { return OthersCpuSeconds(); };
  return settings;
}

// The flags given that set a model.pt's workload or its TorchScript: a script builds its own
// model, data and device, so a run would ignore them, and the user would take them for applied.
std::string ModelOnlyFlagsGiven(const BisectCommandOptions& options) {
  std::string given;
  const auto add = [&given](bool present, const char* flag) {
    if (present) given += (given.empty() ? "" : ", ") + std::string(flag);
  };
  add(!options.workload.device.empty(), "--device");
  add(options.workload.batch_size != 0, "--batch-size");
  add(options.workload.deterministic, "--deterministic");
  add(options.workload.nondeterministic, "--no-deterministic");
  add(options.model.jit_optimize, "--jit-optimize");
  return given;
}

// A finding's line, read in one step of the running script (ScriptSource::SourceOf). One module
// and op is read once; a script that can no longer run a step (it ended) leaves the rest unread.
SourceLocator ScriptLocator(ScriptSource& source, const Progress& progress) {
  auto read = std::make_shared<std::map<std::pair<std::string, std::string>,
                                        std::optional<SourceLocation>>>();
  auto gone = std::make_shared<bool>(false);
  return [&source, progress, read, gone](const std::string& path, const std::string& op) {
    const auto key = std::make_pair(path, op);
    if (const auto known = read->find(key); known != read->end()) return known->second;
    if (*gone) return std::optional<SourceLocation>();
    try {
      return (*read)[key] = source.SourceOf(path, op);
    } catch (const std::runtime_error& error) {
      *gone = true;
      progress(std::string("the findings' remaining lines are not read: ") + error.what());
      return std::optional<SourceLocation>();
    }
  };
}

// --let-run: waits for the script's own end. Its exit status is advisor's: a script that fails
// after the report was written must not pass for a success (the report stays).
int AwaitScriptEnd(const BisectCommandOptions& options, ScriptSource& source,
                   const Progress& progress) {
  const int status = source.WaitForScript();
  const std::string ended =
      ScriptName(options.script.command) + " ended with exit status " + std::to_string(status);
  if (status == 0) {
    progress(ended);
  } else {
    std::cerr << "advisor: " << ended << " after advisor had measured it (--let-run)"
              << std::endl;
  }
  return status;
}

// The script's bisection, from its start to its report; `report_dir` is made once the ranks
// have said which node this is.
int BisectScript(BisectCommandOptions& options, const ScriptOptions& script, const RuleSet& rules,
                 const std::vector<std::string>& rule_problems, const Progress& progress,
                 std::chrono::steady_clock::time_point wall_start,
                 std::optional<ReportDir>& report_dir) {
  ScriptSource source(script, progress);
  std::optional<NodeExchange> nodes = JoinNodes(source.Place(), options.autotest, options.out_dir,
                                                options.nodes_timeout_s, progress);
  if (!nodes || nodes->place().node == 0) report_dir.emplace(options.out_dir);
  BisectOutcome outcome = RunBisection(source, SettingsOnThisMachine(options.settings), progress);
  // The DataLoader's epochs from every window: the baseline's alone rarely holds an epoch's start.
  if (outcome.report.data) outcome.report.data->loader = source.Loader();
  // Several ranks: each rank beside the others, and the straggler, from every rank's windows.
  outcome.report.distributed = source.Distributed();
  outcome.report.compile = source.Compile();
  // The bisection attributed the baseline's compiled kernels (engine/bisect/provenance_levels).
  if (const std::optional<CompiledKernelTime>& compiled = outcome.report.compiled_kernels) {
    outcome.report.data_quality.push_back(
        CompiledKernelsQuality(*compiled, "the probe's tables, in the baseline window"));
  }
  if (const std::string note = source.RanksNote(); !note.empty()) {
    outcome.report.data_quality.push_back(note);
  }
  if (nodes) {
    nodes->Share(source, script, options.settings.window_steps, outcome.report);
    if (nodes->place().node != 0) {
      EndOtherNode(*nodes, source, options.let_run, options.out_dir);
      return options.let_run ? AwaitScriptEnd(options, source, progress) : 0;
    }
    outcome.report.distributed = nodes->Merge(source);
    outcome.report.data_quality.push_back(NodesNote(*outcome.report.distributed));
  }
  outcome.locate = ScriptLocator(source, progress);
  Conclude(rules, rule_problems, outcome);
  outcome.report.run.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (nodes) nodes->Release(source);
  source.Finish(options.let_run);
  const int status = Report(options, outcome, *report_dir, nullptr);
  return options.let_run ? AwaitScriptEnd(options, source, progress) : status;
}

// `advisor bisect [options] -- COMMAND`: the bisection runs inside the script's own run.
int RunScriptBisect(BisectCommandOptions& options) {
  if (!options.model.model_path.empty()) {
    throw std::runtime_error("give a model or a command after --, not both (" +
                             options.model.model_path + ")");
  }
  if (const std::string flags = ModelOnlyFlagsGiven(options); !flags.empty()) {
    throw std::runtime_error(flags + ": for a model.pt's workload; a script sets its own "
                             "device, batch and determinism (change them in the script)");
  }
  if (!options.save_fixed_dir.empty()) {
    throw std::runtime_error(
        "--save-fixed saves a model.pt's rewritten graphs; a script's fixes are changes to its "
        "code, which the report shows as suggested_change");
  }
  if (options.let_run && options.autotest) {
    throw std::runtime_error(
        "--let-run and --autotest cannot be combined: the autotest's runs of the script would "
        "compete with the script training on");
  }
  // Everything that can be checked before the script starts is checked first; the report folder
  // once the ranks have said which node this is (on several nodes, node 0's advisor writes the
  // report and the others only their summaries beside it).
  std::vector<std::string> rule_problems;
  const RuleSet rules = LoadRulesForRun(options.rule_dirs, std::cerr, rule_problems);

  const Progress progress = ProgressOnStderr(options);
  const auto wall_start = std::chrono::steady_clock::now();
  ScriptOptions script = options.script;
  script.warmup_steps = options.settings.warmup_steps;
  // 0 is no limit: a wait no script reaches.
  script.step_timeout = options.workload.step_timeout_s > 0
                            ? std::chrono::seconds(options.workload.step_timeout_s)
                            : std::chrono::hours(24 * 365);
  script.probe_dir = FindDataDir("probe");
  std::optional<ReportDir> report_dir;
  try {
    return BisectScript(options, script, rules, rule_problems, progress, wall_start, report_dir);
  } catch (const ScriptOutOfMemory& error) {
    RunReport report;
    report.run = error.run;
    report.out_of_memory = error.failure;
    report.training_state = error.training_state;
    report.run.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (!report_dir) report_dir.emplace(options.out_dir);
    return ReportOutOfMemory(options, std::move(report), error.what(), rules, rule_problems,
                             *report_dir);
  }
}

}  // namespace

int RunBisectCommand(BisectCommandOptions& options) {
  if (options.script_given) return RunScriptBisect(options);
  if (options.model.model_path.empty()) {
    options.model.model_path = DefaultModel();
    if (options.model.model_path.empty()) {
      std::cerr << "advisor: no model given and the bundled demo is not built "
                   "(cmake --build build --target demo_model)\n";
      return 2;
    }
  }
  options.model.overrides = options.workload.ToOverrides();
  SetStepTimeout(std::chrono::seconds(options.workload.step_timeout_s), options.model.model_path);

  // Everything that can be checked before minutes of profiling is checked first.
  std::optional<FixedModelsDir> fixed;
  if (!options.save_fixed_dir.empty()) {
    if (!options.autotest) {
      throw std::runtime_error("--save-fixed needs --autotest: only a verified rewrite is saved");
    }
    fixed.emplace(options.save_fixed_dir);
  }
  ReportDir report_dir(options.out_dir);
  std::vector<std::string> rule_problems;
  const RuleSet rules = LoadRulesForRun(options.rule_dirs, std::cerr, rule_problems);

  const auto wall_start = std::chrono::steady_clock::now();
  BisectOutcome outcome;
  try {
    outcome = RunBisect(options.model, SettingsOnThisMachine(options.settings),
                        ProgressOnStderr(options));
  } catch (const WorkloadOutOfMemory& error) {
    RunReport report;
    report.run = error.run;
    report.out_of_memory = error.failure;
    report.run.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return ReportOutOfMemory(options, std::move(report), error.what(), rules, rule_problems,
                             report_dir);
  }
  Conclude(rules, rule_problems, outcome);
  return Report(options, outcome, report_dir, fixed ? &*fixed : nullptr);
}

}  // namespace advisor
