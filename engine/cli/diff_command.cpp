#include "engine/cli/diff_command.h"

#include <sys/stat.h>

#include <iostream>
#include <stdexcept>

#include "engine/cli/report_step.h"
#include "engine/cli/stage_clock.h"
#include "engine/cli/trace_input.h"
#include "engine/diff/diff_html.h"
#include "engine/diff/diff_json.h"
#include "engine/diff/diff_markdown.h"
#include "engine/diff/diff_text.h"
#include "engine/diff/rank_sides.h"
#include "engine/diff/report_diff.h"
#include "engine/diff/report_reader.h"
#include "engine/report/report_dir.h"
#include "engine/rules/rules_commands.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

bool IsFolder(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool NamedReportJson(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return path.substr(slash == std::string::npos ? 0 : slash + 1) == "report.json";
}

// A report folder or its report.json as written; anything else is a trace for the analyze door,
// with the rules run on it as `advisor analyze` runs them.
RunReport ReadSide(const std::string& path, const DiffCommandOptions& options) {
  if (IsFolder(path)) {
    const std::string report = path + "/report.json";
    struct stat info {};
    if (::stat(report.c_str(), &info) != 0) {
      throw std::runtime_error(path +
                               ": no report.json in this folder: give a report folder, a "
                               "report.json or one trace file");
    }
    return ReadReportJson(report);
  }
  if (NamedReportJson(path)) return ReadReportJson(path);
  TraceInputs inputs({path});
  StageClock stages(nullptr);
  RunReport report =
      ReadRankTrace(
          inputs, inputs.inputs().front(), ReadOptions{}, OpPlacementsKept::kWhereGpu,
          [&options](const std::string& line) {
            if (!options.quiet) {
              std::cerr << "[advisor] " << PrintableLine(line) << std::endl;
            }
          },
          stages)
          .report;
  std::vector<std::string> rule_problems;
  const RuleSet rules = LoadRulesForRun(options.rule_dirs, std::cerr, rule_problems);
  // A trace says nothing of the allocator settings of its run: the facts take the defaults.
  ApplyRules(rules, RunEnvironment{}, report);
  return report;
}

void PrintSummary(const ReportDiff& diff, const std::string& out_dir) {
  std::cout << PrintableLine(Printf("step: %.3f -> %.3f ms (%s), %s", diff.step.before_ms,
                                    diff.step.after_ms, diff.step.statistic.c_str(),
                                    SignedMs(diff.step.delta_ms).c_str()));
  if (!diff.step.verdict.empty()) std::cout << ": " << diff.step.verdict;
  std::cout << "\n";
  for (const DeltaPart& phase : diff.phases) {
    if (phase.delta_ms != 0) {
      std::cout << "  " << phase.name << " " << SignedMs(phase.delta_ms) << "\n";
    }
  }
  std::cout << "  not attributed " << SignedMs(diff.not_attributed_ms) << "\n";
  if (!diff.modules.empty()) {
    const DeltaPart& top = diff.modules.front().part;
    std::cout << "module that changed most: " << PrintableLine(top.name) << " "
              << SignedMs(top.delta_ms) << "\n";
  }
  std::cout << "diff: " << PrintableLine(out_dir) << "/diff.html (diff.md, diff.json)\n";
}

// Two ranks of one report, each as a side (rank_sides.h).
ReportDiff DiffRanks(const DiffCommandOptions& options) {
  if (!options.after.empty()) {
    throw std::runtime_error("advisor diff RUN --ranks A B compares two ranks of one run: got " +
                             options.before + " and " + options.after);
  }
  const RunReport run = ReadSide(options.before, options);
  const int first = options.ranks[0];
  const int second = options.ranks[1];
  const RunReport before = RankSide(run, first, options.before);
  const RunReport after = RankSide(run, second, options.before);
  ReportDiff diff = DiffReports(before, after);
  // A rank's step is its median step, whether or not it waits for data (RankSummary::step_ms).
  diff.step.statistic = "median";
  // In place of the diff's own notes: the two sides are one run's, and its ranks have no modules.
  diff.notes = RankNotes(run, first, second);
  diff.before = options.before + " rank " + std::to_string(first);
  diff.after = options.before + " rank " + std::to_string(second);
  return diff;
}

}  // namespace

void AddDiffCommand(CLI::App& app, DiffCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "diff",
      "Compare two runs: a report folder (or its report.json, or a torch.profiler trace) before "
      "and after a change, by phase, module instance and op");
  command->add_option("before", options.before, "the run before the change")->required();
  command->add_option("after", options.after, "the run after it (none with --ranks)");
  command->add_option("--ranks", options.ranks, "compare two ranks of the one run's report instead")
      ->expected(2);
  command->add_option("--out", options.out_dir, "diff directory")->capture_default_str();
  command->add_option("--rules", options.rule_dirs,
                      "add the rules in DIR for a trace given (repeatable)");
  command->add_flag("-q,--quiet", options.quiet, "no progress on stderr");
}

int RunDiffCommand(const DiffCommandOptions& options) {
  // Both sides are read, and any bad one refused, before the diff folder is made.
  ReportDiff diff;
  if (!options.ranks.empty()) {
    diff = DiffRanks(options);
  } else if (options.after.empty()) {
    throw std::runtime_error("advisor diff needs two runs: BEFORE and AFTER (or RUN --ranks A B)");
  } else {
    // In the order given: a bad BEFORE is the one named, whichever else is bad.
    const RunReport before = ReadSide(options.before, options);
    const RunReport after = ReadSide(options.after, options);
    diff = DiffReports(before, after);
    diff.before = options.before;
    diff.after = options.after;
  }
  ReportDir out(options.out_dir);
  out.Write({{"diff.md", DiffToMarkdown(diff)},
             {"diff.html", DiffToHtml(diff)},
             {"diff.json", DiffToJsonText(diff)}});
  PrintSummary(diff, out.path());
  return 0;
}

}  // namespace advisor
