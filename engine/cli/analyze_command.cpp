#include "engine/cli/analyze_command.h"

#include <chrono>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "engine/cli/report_step.h"
#include "engine/multi_rank/distributed_summary.h"
#include "engine/multi_rank/rank_trace.h"
#include "engine/rules/rules_commands.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_files.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

void PrintSummary(const RunReport& report, const std::string& out_dir) {
  std::cout << Printf("step: %.3f ms median over %d steps (forward %.3f, backward %.3f, "
                      "optimizer %.3f ms)\n",
                      report.step.median_ms, report.run.window_steps, report.step.forward_ms,
                      report.step.backward_ms, report.step.optimizer_ms);
  PrintStraggler(report);
  PrintFindingsAndReport(report, out_dir, /*with_trace=*/false);
}

// A trace that gives no step (no events, every event malformed, or no op and no ProfilerStep
// range) is an error, not a report of "0.000 ms median over 0 steps".
void CheckHasSteps(const TraceStore& store, const ProfilerTraceWindow& trace) {
  if (!trace.window.timeline.steps.empty()) return;
  const ReadStats& stats = store.stats;
  std::string why;
  if (stats.events == 0 && stats.skipped_events == 0) {
    why = "the trace holds no events";
  } else if (stats.events == 0) {
    why = Printf("all %llu of its events are malformed",
                 static_cast<unsigned long long>(stats.skipped_events));
    if (!stats.problems.empty()) why += " (the first: " + stats.problems.front() + ")";
  } else {
    why = Printf("none of its %llu events is an op or a ProfilerStep#N range",
                 static_cast<unsigned long long>(stats.events));
  }
  throw std::runtime_error(store.path + ": no step to analyse: " + why);
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, AnalyzeCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "analyze", "Analyse torch.profiler traces (one file, or a folder of one trace per rank)");
  command->add_option("path", options.paths, "trace .json / .json.gz, or a folder of them")
      ->required();
  command->add_option("--out", options.out_dir, "report directory")->capture_default_str();
  command->add_option("--rules", options.rule_dirs, "add the rules in DIR (repeatable)");
  command->add_option("--threads", options.threads,
                      "threads that parse events (default: every core this process may use)")
      ->check(CLI::Range(1, 1024));
  command->add_flag("-q,--quiet", options.quiet, "no progress on stderr");
}

int RunAnalyzeCommand(const AnalyzeCommandOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  // Everything that can be checked before reading gigabytes is checked first.
  const std::vector<std::string> files = TraceFilesOf(options.paths);
  ReportDir report_dir(options.out_dir);
  std::vector<std::string> rule_problems;
  const RuleSet rules = LoadRulesForRun(options.rule_dirs, std::cerr, rule_problems);
  const auto progress = [&](const std::string& line) {
    if (!options.quiet) std::cerr << "[advisor] " << PrintableLine(line) << std::endl;
  };

  ReadOptions read;
  read.threads = options.threads;
  std::vector<RankTrace> ranks;
  std::vector<std::string> rank_notes;
  for (const std::string& file : files) {
    progress("reading " + file);
    const auto read_start = std::chrono::steady_clock::now();
    const TraceStore store = ReadTrace(file, read);
    const double read_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
    // A few MB read in a few ms: "0.00 s" said nothing.
    progress(Printf("read %llu events (%.1f MB of JSON) in %s",
                    static_cast<unsigned long long>(store.stats.events),
                    store.stats.json_bytes / 1e6,
                    (read_s < 1 ? Printf("%.0f ms", read_s * 1e3) : Printf("%.2f s", read_s))
                        .c_str()));
    RankTrace rank;
    rank.path = file;
    if (files.size() > 1) {
      rank.rank = RankOf(store.metadata, file, static_cast<int>(ranks.size()), rank_notes);
    }
    rank.distributed = store.metadata.distributed;
    rank.trace = BuildProfilerTraceWindow(store);
    CheckHasSteps(store, rank.trace);
    rank.report = ReportOfTrace(store, rank.trace);
    ranks.push_back(std::move(rank));
  }
  SortByRank(ranks);
  // One report: the lowest rank's sections, and every rank side by side where there are several.
  RunReport report = ranks.front().report;
  if (ranks.size() > 1) {
    report.distributed = SummariseRanks(ranks);
    report.run.model = options.paths.size() == 1 ? options.paths.front() : files.front();
    report.data_quality.insert(report.data_quality.begin(),
                               "the sections other than Ranks are rank " +
                                   std::to_string(ranks.front().rank) + "'s (" +
                                   ranks.front().path + ")");
    report.data_quality.insert(report.data_quality.end(), rank_notes.begin(), rank_notes.end());
  }

  report.data_quality.insert(report.data_quality.end(), rule_problems.begin(),
                             rule_problems.end());
  // A trace says nothing of the allocator settings of its run: the facts take the defaults.
  ApplyRules(rules, RunEnvironment{}, report);
  report.run.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  WriteReportFiles(report_dir, report, std::nullopt);
  PrintSummary(report, report_dir.path());
  return 0;
}

}  // namespace advisor
