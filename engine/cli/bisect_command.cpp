#include "engine/cli/bisect_command.h"

#include <iostream>
#include <sstream>

#include "engine/cli/autotest_step.h"
#include "engine/facts/facts.h"
#include "engine/report/html_writer.h"
#include "engine/report/json_writer.h"
#include "engine/report/markdown_writer.h"
#include "engine/report/report_dir.h"
#include "engine/rules/rule_runner.h"
#include "engine/rules/rules_commands.h"
#include "engine/torch/profiled_window.h"
#include "engine/trace/chrome_trace.h"
#include "engine/util/data_dir.h"

namespace advisor {
namespace {

std::string DefaultModel() {
  const std::string demo_dir = FindDataDir("demo");
  return demo_dir.empty() ? "" : demo_dir + "/demo.pt";
}

void PrintSummary(const BisectReport& report, const std::string& out_dir) {
  std::ostringstream line;
  if (report.hotspot) {
    const Hotspot& hot = *report.hotspot;
    line << "hot spot: " << hot.path << " -> " << hot.op << " (" << hot.phase << ", "
         << hot.ms << " ms/step, " << static_cast<int>(hot.share * 100 + 0.5) << "% of the step)";
    if (hot.source) line << " at " << hot.source->file << ":" << hot.source->line;
  } else {
    line << "no module stands out: see the bisection table";
  }
  std::cout << line.str() << "\n";
  for (const Finding& finding : report.findings) {
    std::cout << "finding [" << SeverityName(finding.severity) << "] " << finding.rule << ": "
              << finding.message << "\n";
  }
  std::cout << "report: " << out_dir << "/report.md (also report.json, report.html, trace.json)\n";
}

}  // namespace

void AddBisectCommand(CLI::App& app, BisectCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "bisect", "Localise the hot spot of a TorchScript training workload, level by level");
  command->footer(kModelIsCode);
  command->add_option("model", options.bisect.model_path,
                      "model.pt with advisor/workload.json inside (default: the bundled demo)");
  command->add_option("--out", options.out_dir, "report directory")->capture_default_str();
  options.workload.AddTo(*command);
  command->add_option("--warmup", options.bisect.warmup_steps, "discarded steps per window")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--steps", options.bisect.window_steps, "profiled steps per window")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--max-depth", options.bisect.max_depth, "deepest level to examine")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command->add_flag("--jit-optimize", options.bisect.jit_optimize,
                    "let the TorchScript executor fuse and specialise (default off: eager-like "
                    "execution, as the model runs in Python; docs/bisect.md)");
  command->add_option("--rules", options.rule_dirs, "add the rules in DIR (repeatable)");
  command->add_flag("-q,--quiet", options.quiet, "no progress on stderr");
  command->add_flag("--autotest", options.autotest,
                    "try the recipes the findings name: check numerics, benchmark each against "
                    "the baseline in separate processes, report the measured result "
                    "(docs/recipes.md)");
  command->add_option("--autotest-rounds", options.autotest_rounds,
                      "A/B rounds per candidate: baseline and candidate processes, alternating; "
                      "the verdict is a sign test over the rounds, so 5 is the fewest that can "
                      "verify")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
}

int RunBisectCommand(BisectCommandOptions& options) {
  if (options.bisect.model_path.empty()) {
    options.bisect.model_path = DefaultModel();
    if (options.bisect.model_path.empty()) {
      std::cerr << "advisor: no model given and the bundled demo is not built "
                   "(cmake --build build --target demo_model)\n";
      return 2;
    }
  }
  options.bisect.overrides = options.workload.ToOverrides();
  SetStepTimeout(std::chrono::seconds(options.workload.step_timeout_s), options.bisect.model_path);

  // Everything that can be checked before minutes of profiling is checked first.
  ReportDir report_dir(options.out_dir);
  std::vector<std::string> rule_problems;
  const RuleSet rules = LoadRulesForRun(options.rule_dirs, std::cerr, rule_problems);

  const Progress progress = [&](const std::string& line) {
    if (!options.quiet) std::cerr << "[advisor] " << line << std::endl;
  };
  BisectOutcome outcome = RunBisect(options.bisect, progress);
  BisectReport& report = outcome.report;
  if (const TrainingStep::LossCheck losses = LossesSoFar(); losses.non_finite > 0) {
    report.data_quality.push_back(
        "the loss was not finite (NaN or infinite) in " + std::to_string(losses.non_finite) +
        " of " + std::to_string(losses.steps) +
        " steps: the training diverged, and its times may not be those of a healthy step");
  }
  report.data_quality.insert(report.data_quality.end(), rule_problems.begin(),
                             rule_problems.end());

  RuleRun rule_run = RunRules(rules, BuildFacts(report, ReadRunEnvironment()));
  report.findings = std::move(rule_run.findings);
  for (std::string& error : rule_run.errors) report.data_quality.push_back(std::move(error));
  if (options.autotest) RunAutotestStep(options, report);

  std::ostringstream trace;
  WriteChromeTrace(outcome.window, outcome.placements, trace);
  report_dir.Write({{"report.md", ReportToMarkdown(report)},
                    {"report.html", ReportToHtml(report)},
                    {"trace.json", trace.str()},
                    {"report.json", ReportToJsonText(report)}});
  PrintSummary(report, report_dir.path());
  return 0;
}

}  // namespace advisor
