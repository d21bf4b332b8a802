// What the autotester measured for each recipe it tried: the A/B benchmark, the numerics, the
// change to make. RunReport::fixes (engine/model/run_report.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace advisor {

// One recipe tried by the autotester (issue: auto-test fixes).
struct BenchStats {
  double mean_ms = 0;  // what the speedup compares: the time a run takes per step
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;
};

struct Numerics {
  double max_abs_diff = 0;
  double max_rel_diff = 0;
  double tolerance = 0;
  // Where it was checked (measured_in::): in runs of their own before the measurement, or inside
  // the run that measured the candidate, on the same call from the same weights.
  std::string checked_in;
};

// A method a graph rewrite changed: the TorchScript code of one module type's method before and
// after the rewrite, as a unified diff (every instance of the type runs it: FixResult::sites).
struct MethodChange {
  std::string module_type;  // TorchScript class, e.g. "__torch__.WindowGather"
  std::string method;       // e.g. "forward"
  std::string diff;         // "@@ -a,n +b,m @@" hunks, shortened (engine/util/unified_diff.h)
};

// One input-stage worker count that the dataloader-workers recipe measured (the series that
// finds the knee, engine/autotest/loader_workers_series.h).
struct WorkerCountPoint {
  int workers = 0;
  double step_ms = 0;  // the candidate's median step in its A/B benchmark
  double speedup = 0;  // over the workload's own worker count, A/B interleaved
  std::optional<double> samples_per_s;
  std::string status;  // the A/B's verdict for this count (fix_status)
};

// Inductor's FX graph cache in one process (torch.compile): its lookups of a compiled graph, found
// (a hit: compiled before, by an earlier run that shared the cache folder), compiled and stored (a
// miss), or compiled and not storable (a bypass).
struct FxGraphCacheLookups {
  int hits = 0;
  int misses = 0;
  int bypasses = 0;
};

// One round's candidate process, measured in processes: the warm-up its A/B steps leave out (a
// compiling recipe's compilation) and, where it compiled with inductor, its cache lookups. The
// first round compiles; later ones find the graphs in the autotest's shared compile cache.
struct RoundWarmup {
  std::optional<double> warmup_s;
  std::optional<FxGraphCacheLookups> fx_graph_cache;
};

// FixResult::measured_in values.
namespace measured_in {
inline constexpr char kProcesses[] = "processes";  // each side of a round a process of its own
inline constexpr char kProcess[] = "process";      // blocks of steps inside one running script
}  // namespace measured_in

// One A/B round's timed steps, in ms: a baseline process and the candidate process after it, or
// a pair of blocks inside one run (engine/autotest/step_blocks.h).
struct StepPair {
  std::vector<double> baseline_ms;
  std::vector<double> candidate_ms;
};

struct FixResult {
  std::string recipe;
  std::string kind;  // "knob" or "rewrite"
  bool preserves_semantics = false;
  // "verified", "rejected", "failed", "no-change", "skipped"; a candidate-only run's "fits" or
  // "out-of-memory" (engine/autotest/ab_benchmark.h, fix_status)
  std::string status;
  // Which step the speedup compared: "min" (the fastest: the one the machine's other work slowed
  // least) or "mean" (stalls included: a workload that waits for its input;
  // engine/autotest/ab_stats.h). Reports written before the fastest step read "median".
  std::string step_statistic = "min";
  std::vector<std::string> sites;  // module paths a rewrite changed
  BenchStats baseline;
  BenchStats candidate;
  double speedup = 0;      // candidate throughput / baseline throughput, over the rounds
  double speedup_low = 0;  // spread of the ratio over the A/B rounds
  double speedup_high = 0;
  // The 95 % confidence interval of `speedup`, over the rounds (engine/autotest/ab_stats.h);
  // absent when fewer than two rounds ran.
  std::optional<double> speedup_ci_low;
  std::optional<double> speedup_ci_high;
  // Where the A/B ran (measured_in::): each round a baseline and a candidate process, or each
  // round a baseline and a candidate block of steps inside one run (knobs switched between
  // steps; engine/autotest/step_blocks.h). "" where nothing ran.
  std::string measured_in;
  int rounds = 0;  // A/B rounds run
  // Each round's timed steps, in round order: what `speedup` and its interval were read from,
  // so that a reader can check them (the statistic of each side, the rounds' spread).
  std::vector<StepPair> pairs;
  // Run alone, without a baseline, after a run that ran out of memory (engine/autotest/fit_runs.h):
  // `candidate` and `peak_memory_mb` are its run's, and there is no speedup.
  bool candidate_only = false;
  std::optional<Numerics> numerics;
  // The highest torch.cuda.max_memory_allocated of the candidate's measured steps, and of the
  // baseline's beside it (the same rounds or blocks); absent on a CPU run.
  std::optional<double> peak_memory_mb;
  std::optional<double> baseline_peak_memory_mb;
  // Measured in blocks of a run whose steps a DataLoader fed: the host's mean wait for a batch
  // per timed step of the candidate's blocks, and of the baseline's beside them. A candidate
  // that waits where the baseline did not is held back by the input pipeline: its speedup is
  // what the loader lets through. Absent otherwise.
  std::optional<double> loader_wait_ms;
  std::optional<double> baseline_loader_wait_ms;
  // Of those timed steps, the ones whose batch began an epoch (a fresh iterator's first, from an
  // empty queue: a wait a long run pays once an epoch), how many on each side and their mean
  // wait, and the loader's epoch in batches (none where it has no length). Absent as
  // loader_wait_ms.
  std::optional<int> epoch_starts;
  std::optional<int> baseline_epoch_starts;
  std::optional<double> epoch_start_wait_ms;
  std::optional<double> baseline_epoch_start_wait_ms;
  std::optional<int> epoch_batches;
  // What an epoch's start costs a long run of each side (engine/autotest/step_blocks.h,
  // EpochStart): the first batch's wait beyond the others' (the loader's, the run's), the lead
  // each side's host kept over the device at a block's end (0 on the host's clock), and the wait
  // less that lead, per epoch. The speedup leaves the timed steps that began an epoch out of its
  // pairs and counts each side's cost once every epoch_batches steps, as a long run pays it.
  // Absent where the epoch has no length or none began after the warm-up.
  std::optional<double> epoch_start_extra_wait_ms;
  std::optional<double> host_lead_ms;
  std::optional<double> baseline_host_lead_ms;
  std::optional<double> epoch_start_cost_ms;
  std::optional<double> baseline_epoch_start_cost_ms;
  // Measured in blocks on a GPU: whether the host paced each side's steps, its lead over the
  // device at its blocks' ends under most of a step (engine/autotest/host_pace.h). A host-paced
  // candidate over a device-paced baseline has a speedup that follows the host CPU's speed, which
  // `detail` says. Absent on the host's clock (CPU) and measured in processes.
  std::optional<bool> host_paced;
  std::optional<bool> baseline_host_paced;
  // The candidate's warm-up, left out of the A/B steps: a compiling recipe's compilation; the
  // longest of its rounds.
  std::optional<double> warmup_s;
  // Each round's candidate process, in round order, where the rounds ran in processes.
  std::vector<RoundWarmup> warmup_rounds;
  std::string detail;  // why rejected or failed: the measured difference, stderr tail
  // A fix a script gets only by a change to its code: the change against the user's file and
  // line ("--- file / +++ file / @@ -N +N @@ / -before / +after"); "" otherwise. A model's
  // verified rewrite gets it too, where the model's source line is known.
  std::string suggested_change;
  std::vector<MethodChange> code_changes;  // a rewrite's changed methods; empty for a knob
  // Where `advisor bisect --save-fixed DIR` saved the fixed model (DIR/<recipe>.pt); "" when not.
  std::string saved_model;
  // dataloader-workers: every worker count tried, fewest first; the fix itself is the knee's
  // (`knee_workers`), the fewest workers within noise of the fastest. Empty otherwise.
  std::vector<WorkerCountPoint> worker_series;
  std::optional<int> knee_workers;
};

// `stats`' step time by the statistic `fix` compared.
inline double ComparedStepMs(const FixResult& fix, const BenchStats& stats) {
  if (fix.step_statistic == "mean") return stats.mean_ms;
  return fix.step_statistic == "min" ? stats.min_ms : stats.median_ms;
}

}  // namespace advisor
