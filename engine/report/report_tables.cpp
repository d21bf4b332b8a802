#include "engine/report/report_tables.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/model/measured.h"
#include "engine/report/format.h"
#include "engine/report/report_text.h"

namespace advisor {

namespace {

using Style = TableCell::Style;

TableCell Text(std::string text) { return {std::move(text), Style::kText}; }
TableCell Code(std::string text) { return {std::move(text), Style::kCode}; }
TableCell NotMeasured() { return {kNotMeasured, Style::kNotMeasured}; }

TableCell Ms(double ms) { return Text(FormatNumber(ms)); }
TableCell Count(long long count) { return Text(std::to_string(count)); }

// A path cell; "" means the finding or site lies outside every instrumented module.
TableCell PathOrOutside(const std::string& path) {
  return path.empty() ? Text("(outside instrumented modules)") : Code(path);
}

// The step the speedup compared (its median or its mean), and the fastest and slowest.
TableCell ComparedWithRange(const FixResult& fix, const BenchStats& stats) {
  if (!BenchmarkMeasured(stats)) return NotMeasured();
  return Text(FormatNumber(ComparedStepMs(fix, stats)) + " " + fix.step_statistic + " (" +
              FormatNumber(stats.min_ms) + "\u2013" + FormatNumber(stats.max_ms) + ")");
}

TableCell SpeedupCell(const FixResult& fix) {
  if (!SpeedupMeasured(fix)) return NotMeasured();
  return Text(SpeedupText(fix));
}

TableCell NumericsCell(const FixResult& fix) {
  if (!fix.numerics) return NotMeasured();
  return Text(FormatScientific(fix.numerics->max_abs_diff) + " / " +
              FormatScientific(fix.numerics->max_rel_diff) + " (tol " +
              FormatScientific(fix.numerics->tolerance) + ")");
}

std::string Join(const std::vector<std::string>& parts, const char* separator) {
  std::string joined;
  for (const std::string& part : parts) {
    if (!joined.empty()) joined += separator;
    joined += part;
  }
  return joined;
}

// A two-column table of named values, filled by AddRow.
Table MetricTable() { return Table{{"metric", "value"}, {false, true}, {}}; }

void AddRow(Table& table, std::string name, TableCell value) {
  table.rows.push_back({{Text(std::move(name)), std::move(value)}});
}

TableCell ShareOfStep(double ms, double step_ms) {
  return step_ms > 0 ? Text(FormatShare(ms / step_ms)) : NotMeasured();
}

}  // namespace

std::string DataPhaseLabel(const DataWait& data, const StepBreakdown& step) {
  return DataPhaseIsMainProcessWork(data, step)
             ? "the main process's own work between the optimizer step and the next forward "
               "(the input batch's receipt included)"
             : "waiting for the input batch";
}

std::string DataPhaseLegend(const DataWait& data, const StepBreakdown& step) {
  return DataPhaseIsMainProcessWork(data, step) ? "main process before the forward"
                                                : "waiting for the input batch";
}

Table StepTable(const StepBreakdown& step, const std::optional<DataWait>& data) {
  // The parts are the profiled window's mean step's, so their shares add up to 100 %;
  // the unprofiled median below is the step time the rest of the report compares against.
  Table table{{"part of the step", "ms/step", "share of step"}, {false, true, true}, {}};
  const double whole = SharesStepMs(step);
  if (data) {
    table.rows.push_back({{Text(DataPhaseLabel(*data, step)), Ms(data->wait_ms),
                           ShareOfStep(data->wait_ms, whole)}});
  }
  table.rows.push_back(
      {{Text("forward"), Ms(step.forward_ms), ShareOfStep(step.forward_ms, whole)}});
  if (step.loss_ms) {
    table.rows.push_back({{Text("loss (from the model's forward to backward())"), Ms(*step.loss_ms),
                           ShareOfStep(*step.loss_ms, whole)}});
  }
  table.rows.push_back(
      {{Text("backward"), Ms(step.backward_ms), ShareOfStep(step.backward_ms, whole)}});
  table.rows.push_back(
      {{Text("optimizer"), Ms(step.optimizer_ms), ShareOfStep(step.optimizer_ms, whole)}});
  if (step.evaluation_ms > 0) {
    table.rows.push_back({{Text("evaluation between steps (the model without gradients)"),
                           Ms(step.evaluation_ms), ShareOfStep(step.evaluation_ms, whole)}});
  }
  table.rows.push_back({{Text("rest"), Ms(step.rest_ms), ShareOfStep(step.rest_ms, whole)}});
  table.rows.push_back(
      {{Text("profiled step (the window's mean)"), Ms(whole), ShareOfStep(whole, whole)}});
  // A trace's steps were all profiled: its whole step is theirs, not steps run without a profiler.
  const std::string steps = step.timing == StepTiming::kProfilerTrace
                                ? std::string("profiled, ") + StepTimingText(step.timing)
                                : std::string("unprofiled, ") + StepTimingText(step.timing);
  table.rows.push_back({{Text("whole step (median, " + steps + ")"), Ms(step.median_ms), Text("")},
                        /*highlighted=*/true});
  table.rows.push_back({{Text("whole step (mean, " + steps + ")"), Ms(step.mean_ms), Text("")}});
  table.rows.push_back({{Text("fastest step"), Ms(step.min_ms), Text("")}});
  table.rows.push_back({{Text("slowest step"), Ms(step.max_ms), Text("")}});
  return table;
}

Table InputStageTable(const InputStageProfile& stage) {
  Table table{{"piece", "kind", "where", "ms/batch", "share of batch", "input", "dtype"},
              {false, false, false, true, true, false, false},
              {}};
  for (const InputStagePiece& piece : stage.pieces) {
    std::string input = piece.input_shape.empty() ? "" : FormatShape(piece.input_shape);
    if (piece.input_is_binary.value_or(false)) input += " (only 0 and 1)";
    table.rows.push_back(
        {{Code(piece.name), Text(piece.kind),
          piece.source ? Code(piece.source->file + ":" + std::to_string(piece.source->line))
                       : NotMeasured(),
          Ms(piece.ms), Text(FormatShare(piece.share)), Text(input),
          piece.dtype.empty() ? NotMeasured() : Code(piece.dtype)}});
  }
  return table;
}

Table SourceLineTable(const std::vector<SourceLine>& lines) {
  Table table{{"line", "code", "runs/step", "ATen ops/step", "us/op", "ms/step", "share of step"},
              {false, false, true, true, true, true, true},
              {}};
  for (const SourceLine& line : lines) {
    table.rows.push_back(
        {{Code(line.source.file + ":" + std::to_string(line.source.line)),
          line.source.text.empty() ? NotMeasured() : Code(line.source.text),
          Count(std::llround(line.runs)), Count(std::llround(line.ops)),
          line.ops > 0 ? Ms(line.op_us) : Text(""), Ms(line.ms), Text(FormatShare(line.share))}});
  }
  return table;
}

Table CandidateTable(const BisectLevel& level, bool gpu_measured) {
  Table table{{"", "module", "instances", "forward ms", "backward ms"},
              {false, false, true, true, true},
              {}};
  if (gpu_measured) {
    table.columns.push_back("GPU ms");
    table.numeric.push_back(true);
  }
  table.columns.push_back("share of parent");
  table.numeric.push_back(true);
  for (const Candidate& candidate : level.candidates) {
    const bool chosen = !level.chosen.empty() && candidate.path == level.chosen;
    TableRow row{{Text(chosen ? "\u25b6 chosen" : ""), Code(candidate.path),
                  Count(candidate.instances), Ms(candidate.forward_ms), Ms(candidate.backward_ms)},
                 chosen};
    if (gpu_measured) row.cells.push_back(Ms(candidate.gpu_ms));
    row.cells.push_back(Text(FormatShare(candidate.share)));
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table OpTable(const std::vector<OpTime>& ops, bool gpu_measured, bool faults_counted,
              std::size_t limit) {
  Table table{{"op", "phase", "calls/step", "ms/step", "self ms/step"},
              {false, false, true, true, true},
              {}};
  if (gpu_measured) {
    table.columns.push_back("GPU ms/step");
    table.numeric.push_back(true);
  }
  if (faults_counted) {
    table.columns.push_back("of which fresh pages");
    table.numeric.push_back(true);
  }
  for (std::size_t i = 0; i < std::min(limit, ops.size()); ++i) {
    const OpTime& op = ops[i];
    TableRow row{{Code(op.name), Text(op.phase), Count(op.calls), Ms(op.ms), Ms(op.self_ms)}};
    if (gpu_measured) row.cells.push_back(Ms(op.gpu_ms));
    if (faults_counted) row.cells.push_back(Ms(op.page_fault_ms));
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table KernelTable(const std::vector<OpTime>& kernels, bool gpu_measured, std::size_t limit) {
  Table table{
      {"kernel", "phase", gpu_measured ? "GPU ms/step" : "ms/step"}, {false, false, true}, {}};
  for (std::size_t i = 0; i < std::min(limit, kernels.size()); ++i) {
    const OpTime& kernel = kernels[i];
    table.rows.push_back(
        {{Code(kernel.name), Text(kernel.phase), Ms(gpu_measured ? kernel.gpu_ms : kernel.ms)}});
  }
  return table;
}

Table ModuleTable(const std::vector<ModuleStats>& modules, bool gpu_measured, std::size_t limit) {
  std::vector<const ModuleStats*> measured;
  for (const ModuleStats& module : modules) {
    if (module.measured) measured.push_back(&module);
  }
  std::stable_sort(measured.begin(), measured.end(),
                   [](const ModuleStats* a, const ModuleStats* b) {
                     return a->forward_ms + a->backward_ms > b->forward_ms + b->backward_ms;
                   });
  Table table{
      {"module", "type", "forward ms/step", "backward ms/step"}, {false, false, true, true}, {}};
  if (gpu_measured) {
    table.columns.push_back("GPU ms/step");
    table.numeric.push_back(true);
  }
  for (std::size_t i = 0; i < std::min(limit, measured.size()); ++i) {
    const ModuleStats& module = *measured[i];
    TableRow row{
        {Code(module.path), Code(module.type), Ms(module.forward_ms), Ms(module.backward_ms)}};
    if (gpu_measured) row.cells.push_back(Ms(module.gpu_ms));
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table RankTable(const DistributedSummary& distributed) {
  Table table{{"rank", "step ms", "forward ms", "backward ms", "optimizer ms", "data wait ms",
               "compute ms/step", "communication ms/step", "exposed ms/step", "late ms/step",
               "waited ms/step", "reached last"},
              {true, true, true, true, true, true, true, true, true, true, true, true},
              {}};
  const int straggler =
      distributed.straggler && distributed.straggler->holds_unprofiled.value_or(true)
          ? distributed.straggler->rank
          : -1;
  // A job of several nodes: each rank's node beside it.
  const bool nodes = !distributed.nodes.empty();
  if (nodes) {
    table.columns.insert(table.columns.begin() + 1, "node");
    table.numeric.insert(table.numeric.begin() + 1, true);
  }
  for (const RankSummary& rank : distributed.ranks) {
    TableRow row{{Text(std::to_string(rank.rank)), Ms(rank.step_ms), Ms(rank.forward_ms),
                  Ms(rank.backward_ms), Ms(rank.optimizer_ms),
                  rank.data_wait_ms ? Ms(*rank.data_wait_ms) : NotMeasured(), Ms(rank.compute_ms),
                  Ms(rank.comm_ms), Ms(rank.exposed_comm_ms), Ms(rank.late_ms), Ms(rank.wait_ms),
                  Text(std::to_string(rank.last_arrivals) + " of " +
                       std::to_string(distributed.collectives_matched))},
                 /*highlighted=*/rank.rank == straggler};
    if (nodes) {
      row.cells.insert(row.cells.begin() + 1,
                       rank.node ? Text(std::to_string(*rank.node)) : NotMeasured());
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

// "2000 \u2192 1500": the baseline's peak beside the candidate's, where both were measured.
TableCell PeakMemoryCell(const FixResult& fix) {
  if (!fix.peak_memory_mb) return NotMeasured();
  const std::string fixed = FormatNumber(*fix.peak_memory_mb);
  return Text(fix.baseline_peak_memory_mb
                  ? FormatNumber(*fix.baseline_peak_memory_mb) + " \u2192 " + fixed
                  : fixed);
}

// The warm-up left out of the A/B steps (a compiling recipe's compile): over rounds of processes,
// the first round's beside the longest later one's, which the shared compile cache served where
// each later round found every graph in it.
TableCell WarmupCell(const FixResult& fix) {
  const std::vector<RoundWarmup>& rounds = fix.warmup_rounds;
  if (rounds.size() < 2 || !rounds.front().warmup_s) {
    return fix.warmup_s ? Text(FormatNumber(*fix.warmup_s)) : NotMeasured();
  }
  double later = 0;
  bool cached = true;
  for (std::size_t round = 1; round < rounds.size(); ++round) {
    later = std::max(later, rounds[round].warmup_s.value_or(0));
    const std::optional<FxGraphCacheLookups>& lookups = rounds[round].fx_graph_cache;
    cached = cached && lookups && lookups->hits > 0 && lookups->misses == 0;
  }
  return Text(FormatNumber(*rounds.front().warmup_s) + " first, " + FormatNumber(later) +
              (cached ? " later (from the compile cache)" : " later"));
}

Table FixTable(const std::vector<FixResult>& fixes) {
  Table table{
      {"recipe", "kind", "status", "sites", "baseline ms (min\u2013max)", "fixed ms (min\u2013max)",
       "speedup", "max abs / rel diff", "peak memory MB (baseline \u2192 fixed)", "warm-up s"},
      {false, false, false, false, true, true, true, true, true, true},
      {}};
  for (const FixResult& fix : fixes) {
    table.rows.push_back(
        {{Code(fix.recipe), Text(fix.kind), Text(fix.status),
          fix.sites.empty() ? Text("whole step") : Code(Join(fix.sites, ", ")),
          ComparedWithRange(fix, fix.baseline), ComparedWithRange(fix, fix.candidate),
          SpeedupCell(fix), NumericsCell(fix), PeakMemoryCell(fix), WarmupCell(fix)},
         fix.status == "verified"});
  }
  return table;
}

Table GpuTable(const GpuSummary& gpu) {
  Table table = MetricTable();
  AddRow(table, "GPU busy (share of step wall time)", Text(FormatShare(gpu.busy_fraction)));
  AddRow(table, "kernel time, ms/step", Ms(gpu.kernel_ms));
  AddRow(table, "memcpy time, ms/step", Ms(gpu.memcpy_ms));
  AddRow(table, "largest idle gap, ms", Ms(gpu.largest_idle_gap_ms));
  AddRow(table, "kernels/step", Text(FormatNumber(gpu.kernels_per_step)));
  AddRow(table, "tiny kernels (share of kernels)", Text(FormatShare(gpu.tiny_kernel_share)));
  AddRow(table, "median kernel, \u00b5s", Text(FormatNumber(gpu.median_kernel_us)));
  AddRow(table, "achieved occupancy (estimated)",
         gpu.achieved_occupancy ? Text(FormatShare(*gpu.achieved_occupancy)) : NotMeasured());
  AddRow(table, "SM efficiency (estimated)",
         gpu.sm_efficiency ? Text(FormatShare(*gpu.sm_efficiency)) : NotMeasured());
  return table;
}

Table SyncTable(const std::vector<SyncSite>& syncs) {
  Table table{{"kind", "module", "op", "phase", "count/step", "wait ms/step"},
              {false, false, false, false, true, true},
              {}};
  for (const SyncSite& sync : syncs) {
    table.rows.push_back({{Text(sync.kind), PathOrOutside(sync.path), Code(sync.op),
                           Text(sync.phase), Count(sync.count_per_step), Ms(sync.wait_ms)}});
  }
  return table;
}

Table CopyTable(const std::vector<CopySite>& copies) {
  Table table{{"module", "op", "phase", "count/step", "bytes/step", "ms/step", "host memory"},
              {false, false, false, true, true, true, false},
              {}};
  for (const CopySite& copy : copies) {
    table.rows.push_back({{PathOrOutside(copy.path), Code(copy.op), Text(copy.phase),
                           Count(copy.count_per_step), Text(FormatBytes(copy.bytes_per_step)),
                           Ms(copy.ms), Text(copy.pageable ? "pageable" : "pinned")}});
  }
  return table;
}

Table WorkerSeriesTable(const FixResult& fix) {
  Table table{
      {"workers", "ms/step", "samples/s", "speedup", "A/B"}, {true, true, true, true, false}, {}};
  for (const WorkerCountPoint& point : fix.worker_series) {
    const bool measured = point.speedup > 0;
    std::string workers = std::to_string(point.workers);
    if (fix.knee_workers == point.workers) workers += " (knee)";
    table.rows.push_back(
        {{Text(workers), measured ? Ms(point.step_ms) : NotMeasured(),
          point.samples_per_s ? Text(FormatNumber(*point.samples_per_s)) : NotMeasured(),
          measured ? Text(FormatSpeedup(point.speedup)) : NotMeasured(), Text(point.status)},
         fix.knee_workers == point.workers});
  }
  return table;
}

Table MemoryTable(const MemoryStats& memory) {
  Table table = MetricTable();
  AddRow(table, "peak allocated, MB", Text(FormatNumber(memory.peak_allocated_mb)));
  AddRow(table, "peak reserved, MB", Text(FormatNumber(memory.peak_reserved_mb)));
  AddRow(table, "device total, MB",
         DeviceTotalMeasured(memory) ? Text(FormatNumber(memory.device_total_mb)) : NotMeasured());
  AddRow(table, "allocator retries",
         memory.alloc_retries ? Count(*memory.alloc_retries) : NotMeasured());
  AddRow(table, "device allocations (cudaMalloc)", Count(memory.num_device_allocs));
  if (memory.tensor_allocs_per_step) {
    AddRow(table, "tensor allocations per step",
           Text(FormatNumber(*memory.tensor_allocs_per_step)));
  }
  if (memory.tensor_alloc_mb_per_step) {
    AddRow(table, "MB allocated per step", Text(FormatNumber(*memory.tensor_alloc_mb_per_step)));
  }
  return table;
}

namespace {

TableCell MbOrNotMeasured(const std::optional<double>& mb) {
  return mb ? Text(FormatNumber(*mb)) : NotMeasured();
}

// A moment of a snapshot's history: ms since its first event, or the event's index.
std::string WhenInHistory(double time, const MemoryStats& memory) {
  if (memory.history && !memory.history->timed) {
    return "event #" + std::to_string(static_cast<long long>(time));
  }
  return FormatNumber(time) + " ms after the history's first event";
}

}  // namespace

Table OutOfMemoryFailureTable(const OutOfMemoryFailure& failure) {
  Table table = MetricTable();
  AddRow(table, "requested, MB", MbOrNotMeasured(failure.requested_mb));
  AddRow(table, "phase", failure.phase.empty() ? NotMeasured() : Text(failure.phase));
  AddRow(table, "module instance running",
         failure.path.empty() ? Text(failure.path_note.empty() ? "none" : failure.path_note)
                              : Code(failure.path));
  const bool holder = failure.live && !failure.live->path.empty();
  AddRow(table, "module instance holding the most kept for backward",
         holder ? Code(failure.live->path) : NotMeasured());
  AddRow(table, "call that raised", failure.op.empty() ? NotMeasured() : Code(failure.op));
  AddRow(table, "your line",
         failure.source ? Code(failure.source->file + ":" + std::to_string(failure.source->line))
                        : NotMeasured());
  AddRow(table, "training steps completed", Count(failure.steps_done));
  const std::optional<AllocatorAtFailure>& allocator = failure.allocator;
  const auto mb = [&allocator](double AllocatorAtFailure::*field) {
    return allocator ? Text(FormatNumber((*allocator).*field)) : NotMeasured();
  };
  AddRow(table, "allocated, MB", mb(&AllocatorAtFailure::allocated_mb));
  AddRow(table, "reserved, MB", mb(&AllocatorAtFailure::reserved_mb));
  AddRow(table, "reserved but not allocated, MB",
         allocator ? Text(FormatNumber(allocator->reserved_mb - allocator->allocated_mb))
                   : NotMeasured());
  AddRow(table, "largest free block, MB",
         MbOrNotMeasured(allocator ? allocator->largest_free_block_mb : std::nullopt));
  AddRow(table, "peak allocated, MB", mb(&AllocatorAtFailure::peak_allocated_mb));
  AddRow(table, "device free, MB",
         MbOrNotMeasured(allocator ? allocator->device_free_mb : std::nullopt));
  AddRow(table, "device total, MB", mb(&AllocatorAtFailure::device_total_mb));
  return table;
}

Table OutOfMemoryFixTable(const std::vector<FixResult>& fixes, const OutOfMemoryFailure& failure) {
  Table table{{"recipe", "result", "ms/step", "peak memory MB (failed run \u2192 fixed)"},
              {false, false, true, true},
              {}};
  const std::optional<double> failed_peak =
      failure.allocator ? std::optional<double>(failure.allocator->peak_allocated_mb)
                        : std::nullopt;
  for (const FixResult& fix : fixes) {
    TableCell peak = NotMeasured();
    if (fix.peak_memory_mb) {
      const std::string fixed = FormatNumber(*fix.peak_memory_mb);
      peak = Text(failed_peak ? FormatNumber(*failed_peak) + " \u2192 " + fixed : fixed);
    }
    table.rows.push_back(
        {{Code(fix.recipe), Text(fix.status),
          BenchmarkMeasured(fix.candidate) ? Ms(ComparedStepMs(fix, fix.candidate)) : NotMeasured(),
          std::move(peak)},
         fix.status == "fits"});
  }
  return table;
}

bool ShowsAllocatorStats(const MemoryStats& memory) {
  return !memory.history && memory.peak_reserved_mb > 0;
}

Table MemoryPeakTable(const MemoryStats& memory) {
  const MemoryPeak& peak = *memory.peak;
  Table table = MetricTable();
  AddRow(table, "peak allocated, MB", Text(FormatNumber(peak.mb)));
  if (!memory.history) {
    // A bisection's window: what its allocations show; the allocator's own figures, where the
    // door has them, are the device memory table's.
    AddRow(table, "when", Text(FormatNumber(peak.time_ms) + " ms into its step"));
    AddRow(table, "phase", peak.phase.empty() ? Text("outside the step") : Text(peak.phase));
    AddRow(table, "module instance holding the most",
           peak.path.empty() ? Text("none instrumented") : Code(peak.path));
    if (!peak.tied_with.empty()) {
      // Repeated blocks hold alike: the one named is first by name, not special.
      std::string alike;
      for (const std::string& path : peak.tied_with) alike += (alike.empty() ? "" : ", ") + path;
      AddRow(table, "as much held by (the holder is first of them by name)", Text(alike));
    }
    AddRow(table, "climbing from step to step, MB per step",
           MbOrNotMeasured(memory.growth_mb_per_step));
    if (memory.growth_source) {
      AddRow(table, "the line keeping it",
             Code(memory.growth_source->file + ":" + std::to_string(memory.growth_source->line) +
                  " (" + memory.growth_source->text + ")"));
    }
    return table;
  }
  AddRow(table, "when", Text(WhenInHistory(peak.time_ms, memory)));
  AddRow(table, "phase",
         peak.phase.empty() ? Text("not told by its ranges or frames") : Text(peak.phase));
  AddRow(table, "module instance holding the most",
         peak.path.empty() ? Text("no range names one") : Code(peak.path));
  AddRow(table, "reserved then, MB", Text(FormatNumber(peak.reserved_mb)));
  AddRow(table, "reserved but not allocated then, MB",
         Text(FormatNumber(peak.reserved_mb - peak.mb)));
  AddRow(table, "largest free block then, MB",
         peak.largest_free_block_mb ? Text(FormatNumber(*peak.largest_free_block_mb))
                                    : Text("not known (expandable segments)"));
  AddRow(table, "peak reserved over the history, MB", Text(FormatNumber(memory.peak_reserved_mb)));
  AddRow(table, "segments allocated (cudaMalloc) in the history", Count(memory.num_device_allocs));
  return table;
}

Table MemoryShareTable(const std::vector<MemoryShare>& shares, const std::string& name_column,
                       bool names_are_code, double peak_mb, const std::string& moment) {
  Table table{{name_column, "MB live at " + moment, "share of " + moment, "allocations"},
              {false, true, true, true},
              {}};
  for (const MemoryShare& share : shares) {
    table.rows.push_back(
        {{names_are_code ? Code(share.name) : Text(share.name), Text(FormatNumber(share.mb)),
          Text(peak_mb > 0 ? FormatShare(share.mb / peak_mb) : "0%"), Count(share.allocations)}});
  }
  return table;
}

Table ModuleMemoryTable(const std::vector<ModuleMemory>& modules, std::size_t limit) {
  Table table{{"module instance", "kept for backward, MB", "forward peak, MB", "backward peak, MB"},
              {false, true, true, true},
              {}};
  for (std::size_t i = 0; i < std::min(limit, modules.size()); ++i) {
    const ModuleMemory& module = modules[i];
    table.rows.push_back(
        {{Code(module.path), MbOrNotMeasured(module.kept_for_backward_mb),
          MbOrNotMeasured(module.forward_peak_mb), MbOrNotMeasured(module.backward_peak_mb)}});
  }
  return table;
}

Table StepMemoryTable(const StepMemoryTimeline& timeline) {
  Table table{{"phase", "from, ms", "to, ms", "highest live, MB", "most of it"},
              {false, true, true, true, false},
              {}};
  for (const MemorySpan& span : timeline.spans) {
    if (span.kind != MemorySpan::Kind::kPhase) continue;
    const StepMemoryPoint* highest = nullptr;
    double highest_mb = 0;
    for (const StepMemoryPoint& point : timeline.points) {
      if (point.time_ms < span.start_ms || point.time_ms >= span.end_ms) continue;
      double mb = 0;
      for (const double layer : point.mb) mb += layer;
      if (highest == nullptr || mb > highest_mb) {
        highest = &point;
        highest_mb = mb;
      }
    }
    if (highest == nullptr) continue;  // shorter than a stretch of the chart
    const auto most = std::max_element(highest->mb.begin(), highest->mb.end());
    const auto layer = static_cast<std::size_t>(most - highest->mb.begin());
    table.rows.push_back(
        {{Text(span.label), Text(FormatNumber(span.start_ms)), Text(FormatNumber(span.end_ms)),
          Text(FormatNumber(highest_mb)),
          Text(layer < timeline.categories.size()
                   ? timeline.categories[layer] + " (" + FormatNumber(*most) + " MB)"
                   : "")}});
  }
  return table;
}

Table OutOfMemoryTable(const MemoryHistory& history) {
  Table table{{history.timed ? "ms after the first event" : "event #", "requested, MB",
               "free on the device, MB", "allocated, MB", "reserved, MB"},
              {true, true, true, true, true},
              {}};
  for (const OutOfMemory& oom : history.ooms) {
    table.rows.push_back(
        {{Text(FormatNumber(oom.time_ms)), Text(FormatNumber(oom.requested_mb)),
          Text(FormatNumber(oom.device_free_mb)), Text(FormatNumber(oom.allocated_mb)),
          Text(FormatNumber(oom.reserved_mb))}});
  }
  return table;
}

namespace {

// What an allocator snapshot is (advisor analyze snapshot.pickle).
Table SnapshotRunTable(const RunInfo& run) {
  Table table{{"what", "value"}, {false, false}, {}};
  AddRow(table, "snapshot", Code(run.model));
  AddRow(table, "device", Text(run.device_name));
  AddRow(table, "advisor", Text(run.advisor_version));
  AddRow(table, "wall time", Text(FormatSeconds(run.wall_s) + " (reading and replay)"));
  return table;
}

// What a torch.profiler trace told about its run (advisor analyze).
Table TraceRunTable(const RunInfo& run, bool gpu_measured) {
  Table table{{"what", "value"}, {false, false}, {}};
  AddRow(table, "trace", Code(run.model));
  AddRow(table, "device",
         Text(run.device_name.empty() ? run.device : run.device + " (" + run.device_name + ")"));
  AddRow(table, "GPU activity",
         Text(gpu_measured ? "recorded (kernel times measured)" : "not in the trace"));
  AddRow(table, "profiled steps", Text(std::to_string(run.window_steps)));
  if (run.cuda_graphs) AddRow(table, "CUDA graphs", Text("yes: the trace shows graph launches"));
  AddRow(table, "advisor", Text(run.advisor_version));
  AddRow(table, "wall time", Text(FormatSeconds(run.wall_s) + " (reading and analysis)"));
  return table;
}

}  // namespace

Table RunTable(const RunInfo& run, bool gpu_measured) {
  if (run.mode == Door::kTrace) return TraceRunTable(run, gpu_measured);
  if (run.mode == Door::kSnapshot) return SnapshotRunTable(run);
  Table table{{"what", "value"}, {false, false}, {}};
  const bool script = run.mode == Door::kScript;
  if (script) {
    std::string command;
    for (const std::string& argument : run.command)
      command += (command.empty() ? "" : " ") + argument;
    AddRow(table, "command", Code(command));
    AddRow(table, "Python", Text(run.python_version + " (" + run.python + ")"));
  } else {
    AddRow(table, "model", Code(run.model));
  }
  AddRow(table, "device",
         Text(run.device_name.empty() ? run.device : run.device + " (" + run.device_name + ")"));
  AddRow(table, "GPU probe",
         Text(gpu_measured ? "ran (kernel times measured)" : "absent (no kernel times)"));
  AddRow(table, script ? "PyTorch" : "LibTorch", Text(run.torch_version));
  AddRow(table, "advisor", Text(run.advisor_version));
  AddRow(table, "batch size", Text(std::to_string(run.batch_size)));
  AddRow(table, "input dtype", Text(run.dtype));
  AddRow(table, "deterministic",
         run.deterministic ? Text(*run.deterministic ? "yes" : "no") : NotMeasured());
  if (run.allow_tf32) AddRow(table, "TF32 matmuls", Text(*run.allow_tf32 ? "on" : "off"));
  if (run.cudnn_benchmark) {
    AddRow(table, "cuDNN benchmark", Text(*run.cudnn_benchmark ? "on" : "off"));
  }
  if (run.cuda_graphs)
    AddRow(table, "CUDA graphs", Text("yes: timed as a graph, profiled eagerly"));
  AddRow(table, "warm-up steps", Text(std::to_string(run.warmup_steps)));
  AddRow(table, "steps per profiled window", Text(std::to_string(run.window_steps)));
  std::string windows = std::to_string(run.windows) + " (baseline included";
  if (run.site_windows > 0) {
    windows +=
        "; " + std::to_string(run.site_windows) + " to name the modules of sync and copy sites";
  }
  if (run.memory_windows > 0) {
    windows += "; " + std::to_string(run.memory_windows) + " to narrow the memory's holder";
  }
  if (run.repeated_windows > 0) {
    windows += "; " + std::to_string(run.repeated_windows) +
               " measured again where a window's steps did not back its choice";
  }
  if (run.look_ahead_windows > 0) {
    windows += "; " + std::to_string(run.look_ahead_windows) +
               " to look into a hottest child the descent did not enter";
  }
  AddRow(table, "profiled windows", Text(windows + ")"));
  AddRow(
      table, "wall time",
      Text(FormatSeconds(run.wall_s) + (script ? " (the script's start-up and first steps included)"
                                               : " (model load included)")));
  return table;
}

}  // namespace advisor
