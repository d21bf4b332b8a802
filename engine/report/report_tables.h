// The report's tables as plain rows of formatted text, built once and rendered by both the
// Markdown and the HTML writer, so the two documents always show the same numbers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"

namespace advisor {

struct TableCell {
  enum class Style {
    kText,         // a label, prose or a formatted measurement
    kCode,         // an identifier from the model: module path, op name, file
    kNotMeasured,  // kNotMeasured, styled so it cannot be mistaken for a value
  };
  std::string text;
  Style style = Style::kText;
};

struct TableRow {
  std::vector<TableCell> cells;
  bool highlighted = false;  // the chosen candidate, the step total
};

struct Table {
  std::vector<std::string> columns;  // titles, with the unit where there is one
  std::vector<bool> numeric;         // per column: right-aligned
  std::vector<TableRow> rows;
};

// How many rows the op tables (whole step, hot spot) and the module table show.
inline constexpr std::size_t kTopOpsShown = 15;
inline constexpr std::size_t kModulesShown = 15;

// forward / backward / optimizer / step median, min and max, with shares of the median step.
Table StepTable(const StepBreakdown& step, const std::optional<DataWait>& data);

// What the step breakdown calls its data phase: a wait for the input batch, or where the
// DataLoader's workers keep up and are mostly idle (DataPhaseIsMainProcessWork, as the
// data-loader-stall rule decides it), the main process's own work before the forward.
std::string DataPhaseLabel(const DataWait& data, const StepBreakdown& step);
// The same for a chart's legend, in a few words.
std::string DataPhaseLegend(const DataWait& data, const StepBreakdown& step);

// The input stage's pieces (transforms and lines), heaviest first: where, ms per batch, share of
// the batch, the shape and dtype each ran at.
Table InputStageTable(const InputStageProfile& stage);

// Lines of the user's code (the loss's, the hot spot module's): where, how often each ran, its
// ops, and its part of the step.
Table SourceLineTable(const std::vector<SourceLine>& lines);

// One bisection level's candidates; the chosen one is highlighted and marked.
Table CandidateTable(const BisectLevel& level, bool gpu_measured);

// The first `limit` ops (they arrive hottest first).
// `faults_counted`: a column for the fresh-page time of each op's ms (PageFaultsCounted).
Table OpTable(const std::vector<OpTime>& ops, bool gpu_measured, bool faults_counted,
              std::size_t limit);

// A hot spot's kernels where the levels came from the compiled kernels' provenance: the first
// `limit` (hottest first), each with its phase and its time (GPU kernel time, or host time on a
// CPU); they have no calls or self time of their own.
Table KernelTable(const std::vector<OpTime>& kernels, bool gpu_measured, std::size_t limit);

// The measured modules, slowest (forward + backward) first, the first `limit` of them.
Table ModuleTable(const std::vector<ModuleStats>& modules, bool gpu_measured, std::size_t limit);

// One row per rank: step and phases, data wait, compute, communication (exposed), lateness.
Table RankTable(const DistributedSummary& distributed);

Table FixTable(const std::vector<FixResult>& fixes);

// dataloader-workers' series: one row per worker count tried, the knee highlighted.
Table WorkerSeriesTable(const FixResult& fix);
Table GpuTable(const GpuSummary& gpu);
Table SyncTable(const std::vector<SyncSite>& syncs);
Table CopyTable(const std::vector<CopySite>& copies);
Table MemoryTable(const MemoryStats& memory);
// Whether `memory` has a caching allocator's statistics of a window (a CUDA run's), the device
// memory table: a snapshot's are its history's, a CPU run's allocator keeps none.
bool ShowsAllocatorStats(const MemoryStats& memory);

// The memory section of a snapshot (MemoryStats::peak and history): the peak, when and in what
// phase, the instance holding the most, the reserved memory then and its free space; of a
// bisection's window (no history): the peak, when, its phase, the instance holding the most and
// the climb from step to step.
Table MemoryPeakTable(const MemoryStats& memory);

// What an out-of-memory error left: the request, where, what the allocator held (the
// fragmentation, the largest free block), the device's free memory; rows not measured say so.
Table OutOfMemoryFailureTable(const OutOfMemoryFailure& failure);

// The candidate-only runs after it (FixResult::candidate_only): each fix's result, its step and
// its peak beside the failed run's peak allocated where both were measured (CUDA).
Table OutOfMemoryFixTable(const std::vector<FixResult>& fixes, const OutOfMemoryFailure& failure);
// Bytes live at the peak (`moment`: "the failure" for an out-of-memory error's) by category, by
// the user's line or by instance: `name_column` titles the first column (a line is code), with
// each one's share of the peak.
Table MemoryShareTable(const std::vector<MemoryShare>& shares, const std::string& name_column,
                       bool names_are_code, double peak_mb, const std::string& moment = "the peak");
// Memory per module instance, the first `limit` (they arrive most kept for backward first).
Table ModuleMemoryTable(const std::vector<ModuleMemory>& modules, std::size_t limit);
// Each allocation the allocator could not serve, with the memory then.
Table OutOfMemoryTable(const MemoryHistory& history);
// A bisection's live memory over the step of its peak (report.md's stand-in for the chart): per
// stretch of a phase, the highest live memory in it and the category holding the most then.
Table StepMemoryTable(const StepMemoryTimeline& timeline);
inline constexpr std::size_t kMemoryModulesShown = 20;

// "What was measured on what": device, versions, steps, windows, wall time.
Table RunTable(const RunInfo& run, bool gpu_measured);

}  // namespace advisor
