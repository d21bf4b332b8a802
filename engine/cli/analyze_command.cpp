#include "engine/cli/analyze_command.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/analysis/compiled_kernels.h"
#include "engine/cli/report_destination.h"
#include "engine/cli/report_step.h"
#include "engine/cli/stage_clock.h"
#include "engine/cli/trace_input.h"
#include "engine/cli/trace_inputs.h"
#include "engine/memory_snapshot/snapshot_reader.h"
#include "engine/memory_snapshot/snapshot_report.h"
#include "engine/multi_rank/distributed_summary.h"
#include "engine/multi_rank/rank_trace.h"
#include "engine/report/compiled_kernels_section.h"
#include "engine/rules/rules_commands.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

void PrintSummary(const RunReport& report, const std::string& out_dir) {
  std::cout << Printf(
      "step: %.3f ms median over %d steps (forward %.3f, backward %.3f, "
      "optimizer %.3f ms)\n",
      report.step.median_ms, report.run.window_steps, report.step.forward_ms,
      report.step.backward_ms, report.step.optimizer_ms);
  PrintStraggler(report);
  PrintFindingsAndReport(report, out_dir, /*with_trace=*/false);
}

void PrintSnapshotSummary(const RunReport& report, const std::string& out_dir) {
  const MemoryPeak& peak = *report.memory->peak;
  std::cout << Printf("peak: %.3f MB allocated%s, %.3f MB reserved then", peak.mb,
                      peak.phase.empty() ? "" : (" in the " + peak.phase + " pass").c_str(),
                      peak.reserved_mb);
  if (!peak.path.empty()) std::cout << "; " << PrintableLine(peak.path) << " holds the most";
  std::cout << "\n";
  PrintFindingsAndReport(report, out_dir, /*with_trace=*/false);
}

// An allocator snapshot (docs/memory.md): its memory section through the rules, report files
// and summary a trace goes through.
int AnalyzeSnapshot(const AnalyzeCommandOptions& options,
                    std::chrono::steady_clock::time_point start) {
  if (options.paths.size() != 1) {
    throw std::runtime_error(
        "advisor analyze reads one snapshot at a time: give its .pickle "
        "alone");
  }
  const std::string& path = options.paths.front();
  if (IsObjectUrl(path)) {
    throw std::runtime_error(PrintableLine(path) +
                             ": snapshots are read from local files only; copy it here first");
  }
  ReportDestination destination(options.out_dir);
  std::vector<std::string> rule_problems;
  const RuleSet rules = LoadRulesForRun(options.rule_dirs, std::cerr, rule_problems);
  if (!options.quiet) std::cerr << "[advisor] reading " << PrintableLine(path) << std::endl;
  const auto read_start = std::chrono::steady_clock::now();
  const MemorySnapshot snapshot = ReadMemorySnapshot(path);
  RunReport report = ReportOfSnapshot(snapshot);
  if (!options.quiet) {
    std::cerr << "[advisor] "
              << PrintableLine(Printf("replayed %lld events in %s",
                                      static_cast<long long>(report.memory->history->events),
                                      Duration(SecondsSince(read_start)).c_str()))
              << std::endl;
  }
  report.data_quality.insert(report.data_quality.end(), rule_problems.begin(), rule_problems.end());
  // A snapshot says nothing of the allocator settings of its run: the facts take the defaults.
  ApplyRules(rules, RunEnvironment{}, report);
  report.run.wall_s = SecondsSince(start);
  WriteReportFiles(destination.folder(), report, std::nullopt);
  destination.Publish();
  PrintSnapshotSummary(report, destination.shown_path());
  return 0;
}

// The compiled model's kernel time by instance, and how much of it the provenance named, in
// data_quality; a trace without a compiled graph's call gets the line that says so instead.
void AddCompiledKernels(const Timeline& timeline, const std::vector<CompiledGraphSources>& graphs,
                        const std::string& path, RunReport& report) {
  const CompiledKernelTime time = AttributeCompiledKernels(timeline, graphs);
  if (time.calls == 0) {
    report.data_quality.push_back(
        "--compiled-provenance " + PrintableLine(path) +
        ": the trace holds no compiled graph's call (no '## Call CompiledFxGraph' range), so "
        "nothing was attributed by it");
    return;
  }
  report.data_quality.push_back(CompiledKernelsQuality(time, PrintableLine(path)));
  report.compiled_kernels = time;
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, AnalyzeCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "analyze",
      "Analyse torch.profiler traces (one file, or a folder of one trace per rank), or an "
      "allocator snapshot (torch.cuda.memory._dump_snapshot's .pickle)");
  command
      ->add_option("path", options.paths,
                   "trace .json / .json.gz, a folder of them, s3://BUCKET/KEY or "
                   "s3://BUCKET/PREFIX/ of them, or a snapshot .pickle")
      ->required();
  command->add_option("--out", options.out_dir, "report directory, or s3://BUCKET/PREFIX/")
      ->capture_default_str();
  command->add_option("--rules", options.rule_dirs, "add the rules in DIR (repeatable)");
  command
      ->add_option(
          "--threads", options.threads,
          "threads that parse events and read their records (default: every core this process "
          "may use)")
      ->check(CLI::Range(1, 1024));
  command->add_option("--compiled-provenance", options.compiled_provenance,
                      "the compiled model's kernel provenance (provenance.json, "
                      "scripts/record_compiled_provenance.py): its kernel time by module instance");
  command->add_flag("-q,--quiet", options.quiet, "no progress on stderr");
  command->add_flag("-v,--verbose", options.verbose,
                    "each stage's time and the memory held after it, on stderr");
}

int RunAnalyzeCommand(const AnalyzeCommandOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (std::any_of(options.paths.begin(), options.paths.end(), IsSnapshotFileName)) {
    if (!options.compiled_provenance.empty()) {
      throw std::runtime_error(
          "--compiled-provenance: for a trace of a compiled model; a snapshot has no kernels");
    }
    return AnalyzeSnapshot(options, start);
  }
  // Everything that can be checked before reading gigabytes is checked first.
  TraceInputs inputs(options.paths);
  std::optional<std::vector<CompiledGraphSources>> provenance;
  if (!options.compiled_provenance.empty()) {
    provenance = ReadCompiledProvenanceFile(options.compiled_provenance);
  }
  ReportDestination destination(options.out_dir);
  std::vector<std::string> rule_problems;
  const RuleSet rules = LoadRulesForRun(options.rule_dirs, std::cerr, rule_problems);
  const auto progress = [&](const std::string& line) {
    if (!options.quiet) std::cerr << "[advisor] " << PrintableLine(line) << std::endl;
  };
  // --verbose's lines are asked for by name: -q does not silence them.
  StageClock stages(options.verbose
                        ? std::function<void(const std::string&)>([](const std::string& line) {
                            std::cerr << "[advisor] " << PrintableLine(line) << std::endl;
                          })
                        : nullptr);

  ReadOptions read;
  read.threads = options.threads;
  std::vector<RankTrace> ranks;
  std::vector<std::string> rank_notes;
  const std::vector<TraceInput>& files = inputs.inputs();
  for (const TraceInput& input : files) {
    const std::string& file = input.name;
    // Several ranks are compared op by op (their top-level ops' time): each keeps its placements.
    RankTrace rank =
        ReadRankTrace(inputs, input, read,
                      files.size() > 1 ? OpPlacementsKept::kEvery : OpPlacementsKept::kWhereGpu,
                      progress, stages);
    if (files.size() > 1) {
      TraceMetadata metadata;
      metadata.distributed = rank.distributed;
      rank.rank = RankOf(metadata, file, static_cast<int>(ranks.size()), rank_notes);
    }
    stages.Done("report");
    ranks.push_back(std::move(rank));
  }
  SortByRank(ranks);
  // One report: the lowest rank's sections, and every rank side by side where there are several.
  RunReport report = ranks.front().report;
  if (ranks.size() > 1) {
    report.distributed = SummariseRanks(ranks);
    report.run.model = options.paths.size() == 1 ? options.paths.front() : files.front().name;
    report.data_quality.insert(report.data_quality.begin(),
                               "the sections other than Ranks are rank " +
                                   std::to_string(ranks.front().rank) + "'s (" +
                                   ranks.front().path + ")");
    report.data_quality.insert(report.data_quality.end(), rank_notes.begin(), rank_notes.end());
    stages.Done("ranks");
  }

  if (provenance) {
    AddCompiledKernels(ranks.front().trace.window.timeline, *provenance,
                       options.compiled_provenance, report);
  }

  report.data_quality.insert(report.data_quality.end(), rule_problems.begin(), rule_problems.end());
  // A trace says nothing of the allocator settings of its run: the facts take the defaults.
  ApplyRules(rules, RunEnvironment{}, report);
  stages.Done("rules");
  report.run.wall_s = SecondsSince(start);

  WriteReportFiles(destination.folder(), report, std::nullopt);
  destination.Publish();
  stages.Done("report files");
  PrintSummary(report, destination.shown_path());
  return 0;
}

}  // namespace advisor
