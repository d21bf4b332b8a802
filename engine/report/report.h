// Everything one `advisor bisect` run found, as plain data. The writers (JSON, Markdown, HTML,
// Perfetto trace) read only this; report.json is its serialisation and the contract that tools
// and tests read (schema in docs/report-schema.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/rules/finding.h"

namespace advisor {

struct RunInfo {
  std::string model;          // path as given
  std::string device;         // "cpu" or "cuda"
  std::string device_name;    // e.g. "NVIDIA H100 80GB HBM3", or the CPU's model name
  std::string torch_version;  // LibTorch that ran the model
  std::string advisor_version;
  int warmup_steps = 0;
  int window_steps = 0;
  int windows = 0;            // profiled windows used, the uninstrumented baseline included
  int site_windows = 0;       // of those, windows that only named the modules of sync/copy sites
  int batch_size = 0;         // 0: unknown (a trace does not say)
  std::optional<bool> deterministic;  // absent when the front door cannot tell (a trace)
  std::string dtype;          // of the first input
  double wall_s = 0;          // whole run, model load included
  // The workload replays its step as a CUDA graph. A replay hides every op inside it from the
  // probes, so the step is measured and profiled eagerly, and the graphed step is only timed
  // (StepBreakdown::graphed_median_ms).
  bool cuda_graphs = false;
  // The front door that produced the report: "model" (advisor bisect model.pt), "script"
  // (advisor bisect -- python train.py) or "trace" (advisor analyze trace.json). Last, so that
  // positional initialisers of the other fields keep their meaning.
  std::string mode = "model";
  // Script mode: the command as given after `--`, and the Python that ran it.
  std::vector<std::string> command;
  std::string python;          // the interpreter's path
  std::string python_version;  // e.g. "3.11.2"
  // The step's CUDA math settings, on a CUDA run where the door can tell (absent otherwise): TF32
  // in float32 matmuls (torch.backends.cuda.matmul.allow_tf32) and cuDNN's benchmark mode. A
  // trace says neither; its GEMM kernels show TF32 where they ran in it (allow_tf32 true).
  std::optional<bool> allow_tf32;
  std::optional<bool> cudnn_benchmark;
  // A CPU model's windows count each top-level op's page faults (first touches of fresh memory)
  // and price them at this cost of one, measured on the host; absent where not counted.
  std::optional<double> page_fault_us;
};

// Medians over the baseline window's steps (host clock; on GPU, the step ends after a sync).
struct StepBreakdown {
  double median_ms = 0;
  // The same steps' mean: the time a run takes per step. Above the median where some steps wait
  // far longer than most (a DataLoader's prefetched batches make its waits come in bursts).
  double mean_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  // The phases of the profiled window's mean step (PhasesOfMeanStep), which add up to
  // profiled_ms with the data wait (DataWait::wait_ms), evaluation_ms and rest_ms: every share
  // of the breakdown is of that step.
  double profiled_ms = 0;
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
  // A script's evaluation between steps (the model called without gradients after an optimizer
  // step: a validation loop), in no phase; 0 where there was none (docs/script-mode.md).
  double evaluation_ms = 0;
  double rest_ms = 0;
  // Of the profiled mean step, first touches of fresh memory pages in its ops; absent where the
  // run did not count them (RunInfo::page_fault_us).
  std::optional<double> page_fault_ms;
  // With RunInfo::cuda_graphs: the median of as many unprofiled steps replayed as a CUDA graph.
  // Everything else here, and every share of the step, is of the eager step, which the windows saw.
  std::optional<double> graphed_median_ms;
};

// One piece of the input stage's work on a batch, measured where the batch was prepared (a
// worker thread running `input_stage` in model mode, a DataLoader worker process in script mode):
// a transform of the pipeline, or a line of the stage's code.
struct InputStagePiece {
  std::string name;  // the transform ("RandomDilation") or the line's heaviest op ("aten::conv2d")
  std::string kind;  // "transform" or "line"
  std::optional<SourceLocation> source;
  double ms = 0;     // per batch, median over the batches measured
  double share = 0;  // of InputStageProfile::batch_ms
  std::vector<long long> input_shape;   // of its largest tensor input, where known
  std::vector<long long> output_shape;  // of its largest tensor output, where known
  std::string dtype;                    // of that input, e.g. "float32"; "" where unknown
  // Its input held only 0 and 1 in a wider dtype (a mask computed in float), checked on a sampled
  // batch; absent where not checked.
  std::optional<bool> input_is_binary;
};

// What preparing one batch costs and where that time goes; present where the door measured the
// input stage itself (not only the step's wait for it).
struct InputStageProfile {
  double batch_ms = 0;  // one batch's preparation by one worker, median
  int batches = 0;      // batches measured
  // The stage's output (its first tensor): a batch in model mode, one item of the Dataset in
  // script mode (the shapes of the pieces are then per item too).
  std::vector<long long> output_shape;
  std::string output_dtype;
  std::vector<InputStagePiece> pieces;  // heaviest first
  int cores = 0;                        // CPU cores the workers can use
  // Busy time of all workers over (workers x wall time) in the measured window; absent with
  // workers 0 or where the door cannot tell.
  std::optional<double> worker_busy_share;
};

// The DataLoader a script's training loop iterates, and what starting one of its epochs costs
// (docs/facts.md, facts.data.loader): pooled over the windows' steps, where epochs start when
// they are short.
struct LoaderEpochs {
  int workers = 0;                     // num_workers
  bool persistent = false;             // persistent_workers
  std::optional<int> epoch_batches;    // len(loader); absent for an iterable Dataset
  double batches_per_step = 0;         // its batches per training step in the windows
  int epochs_seen = 0;                 // restarts (its second epoch on) inside the windows' steps
  // The previous epoch's end, iter() and the wait for the first batch, less a later batch's
  // steady wait: medians over the restarts seen; absent when none was.
  std::optional<double> epoch_start_ms;
};

// The step's wait for its input batch: present when the workload has an input stage
// (docs/workload.md), measured as the data phase of the baseline window's steps.
struct DataWait {
  double wait_ms = 0;                 // the data phase of the profiled median step (StepBreakdown)
  std::optional<int> workers;         // input_stage.workers; absent where the door cannot tell
  std::optional<bool> pin_memory;     // input_stage.pin_memory, on a CUDA device; likewise
  std::optional<InputStageProfile> stage;  // where the stage itself was measured
  std::optional<LoaderEpochs> loader = std::nullopt;  // script mode, once a backward followed a
                                                      // batch of one
};

struct Candidate {
  std::string path;
  double forward_ms = 0;   // per step, median over the window's steps
  double backward_ms = 0;
  double gpu_ms = 0;       // kernel time attributed to the module; 0 without a GPU probe
  double share = 0;        // of the parent's time at this level, 0..1
  int instances = 1;       // >1 for a container group such as "blocks" (blocks.0 .. blocks.11)
};

struct BisectLevel {
  int depth = 0;                 // 1 for the root's children
  std::string parent;            // "" for the root
  std::vector<Candidate> candidates;  // hottest first
  std::string chosen;            // "" when the level stopped the descent
  std::string reason;            // why this child was chosen, or why the descent stopped
  bool reused_window = false;    // measured by the previous level's window (container groups)
  // The median step of the level's window, markers and probes on: what instrumenting this level
  // cost beside step.median_ms. 0 for a reused window.
  double window_step_ms = 0;
  // Steps of the level's window that, each decided alone, lead to the same choice as the
  // window's medians; a level whose steps did not agree was measured again (measured_again).
  int steps_backing = 0;
  bool measured_again = false;
};

struct OpTime {
  std::string name;
  std::string phase;  // "forward", "backward", "optimizer"
  int calls = 0;      // per step
  double ms = 0;      // host time per step (inclusive of ops it calls)
  double gpu_ms = 0;  // kernel time per step; 0 without a GPU probe
  double self_ms = 0; // host time per step outside the ops it calls
  // Of ms, first touches of fresh memory pages (RunInfo::page_fault_us); 0 where not counted.
  double page_fault_ms = 0;
};

struct Hotspot {
  std::string path;   // module instance path
  std::string phase;  // "forward", "backward", "optimizer"
  std::string op;     // e.g. "GatherBackward0"
  std::string forward_op;  // for backward ops: the forward op that made the node, e.g. "aten::gather"
  double ms = 0;      // per step
  double share = 0;   // of the step
  std::optional<SourceLocation> source;
  std::vector<OpTime> top_ops;  // the module's top ops, hottest first
  // "high", or "low" when the run's noise or a level's steps left the choice in doubt, for the
  // reasons in BisectReport::doubts.
  std::string confidence = "high";
  std::vector<std::string> candidates;  // other places a low-confidence run could not rule out
};

struct CrossCheck {
  // Backward ops whose module by sequence number agrees with their module by markers.
  int backward_ops_checked = 0;
  int backward_ops_agreeing = 0;
  int backward_ops_without_forward = 0;  // e.g. inside DifferentiableGraphBackward
};

// Per module instance seen by any level (facts.modules for the rules).
struct ModuleStats {
  std::string path;
  std::string type;          // TorchScript class name, e.g. "__torch__.timm.layers.PatchDropout"
  double forward_ms = 0;     // per step; 0 when never instrumented (see measured)
  double backward_ms = 0;
  double gpu_ms = 0;
  bool measured = false;     // some level instrumented this module
  std::optional<long long> parameters;  // own and descendants'; absent when unknown (a trace)
  std::vector<std::string> op_types;  // operator kinds its own forward uses, e.g. "aten::gather"
};

// GPU step metrics from the CUPTI records of the baseline window (issue: GPU truth).
struct GpuSummary {
  double busy_fraction = 0;        // union of kernel/memcpy/memset time over the step's wall time
  double kernel_ms = 0;            // per step, summed kernel time
  double memcpy_ms = 0;
  double largest_idle_gap_ms = 0;
  double kernels_per_step = 0;
  double tiny_kernel_share = 0;    // kernels shorter than kTinyKernelUs, as a share of all kernels
  double median_kernel_us = 0;
  std::optional<double> achieved_occupancy;  // estimated from launch configs and device limits
  std::optional<double> sm_efficiency;       // estimated: blocks vs SMs, weighted by kernel time
};

// A host-device synchronisation inside the step, localised.
struct SyncSite {
  std::string kind;   // "cudaStreamSynchronize", "blocking memcpy D2H", ...
  std::string path;   // module instance path, "" when outside instrumented modules
  std::string op;     // the ATen op that caused it, e.g. "aten::item"
  std::string phase;
  int count_per_step = 0;
  double wait_ms = 0;  // per step
};

// A host-to-device copy that happens every step.
struct CopySite {
  std::string path;
  std::string op;
  std::string phase;
  int count_per_step = 0;
  double bytes_per_step = 0;
  double ms = 0;
  bool pageable = false;
};

struct MemoryStats {
  double peak_allocated_mb = 0;
  double peak_reserved_mb = 0;
  double device_total_mb = 0;
  std::optional<long long> alloc_retries;  // caching allocator cudaMalloc retries (churn);
                                           // absent where not measured (a trace)
  long long num_device_allocs = 0; // cudaMalloc calls during the window
  // From profile_memory's [memory] records (a trace): tensor allocations per step and their size.
  std::optional<double> tensor_allocs_per_step;
  std::optional<double> tensor_alloc_mb_per_step;
};

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
};

// A method a graph rewrite changed: the TorchScript code of one module type's method before and
// after the rewrite, as a unified diff (every instance of the type runs it: FixResult::sites).
struct MethodChange {
  std::string module_type;  // TorchScript class, e.g. "__torch__.WindowGather"
  std::string method;       // e.g. "forward"
  std::string diff;         // "@@ -a,n +b,m @@" hunks, shortened (engine/util/unified_diff.h)
};

// One input-stage worker count that the dataloader-workers recipe measured (the series that
// finds the knee, engine/autotest/worker_series.h).
struct WorkerCountPoint {
  int workers = 0;
  double step_ms = 0;  // the candidate's median step in its A/B benchmark
  double speedup = 0;  // over the workload's own worker count, A/B interleaved
  std::optional<double> samples_per_s;
  std::string status;  // the A/B's verdict for this count (fix_status)
};

struct FixResult {
  std::string recipe;
  std::string kind;                 // "knob" or "rewrite"
  bool preserves_semantics = false;
  std::string status;               // "verified", "rejected", "failed", "no-change"
  // Which step the speedup compared: "median" (robust to steps the machine's other work slowed)
  // or "mean" (stalls included: a workload that waits for its input; engine/autotest/ab_stats.h).
  std::string step_statistic = "median";
  std::vector<std::string> sites;   // module paths a rewrite changed
  BenchStats baseline;
  BenchStats candidate;
  double speedup = 0;               // baseline median / candidate median
  double speedup_low = 0;           // spread of the ratio over the A/B rounds
  double speedup_high = 0;
  // The 95 % confidence interval of `speedup`, over the rounds (engine/autotest/ab_stats.h);
  // absent when fewer than two rounds ran.
  std::optional<double> speedup_ci_low;
  std::optional<double> speedup_ci_high;
  int rounds = 0;                   // A/B rounds run: each a baseline and a candidate process
  std::optional<Numerics> numerics;
  std::optional<double> peak_memory_mb;
  // The candidate's warm-up, left out of the A/B steps: a compiling recipe's compilation.
  std::optional<double> warmup_s;
  std::string detail;               // why rejected or failed: the measured difference, stderr tail
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
  return fix.step_statistic == "mean" ? stats.mean_ms : stats.median_ms;
}

// One rank's steps timed without a profiler (advisor bisect's timing steps): its median step
// and the phases of that step, as the probe's step clock cut it.
struct UnprofiledSteps {
  int steps = 0;
  double step_ms = 0;
  double data_wait_ms = 0;
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
};

// One rank of a multi-rank run, from its own trace (advisor analyze on a folder of rank traces).
// Times are per step, medians over the rank's steps where they are step times, totals over its
// steps divided by their number otherwise.
struct RankSummary {
  int rank = 0;
  std::string trace;                 // the file it came from
  double step_ms = 0;                // median step
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
  std::optional<double> data_wait_ms;  // absent without DataLoader ranges
  double compute_ms = 0;             // union of compute: kernels on a GPU, host ops on a CPU
  double comm_ms = 0;                // union of its collectives' time
  double exposed_comm_ms = 0;        // collective time no compute overlaps
  double late_ms = 0;                // how much later than the earliest rank it reached the
                                     // matched collectives, summed
  int last_arrivals = 0;             // matched collectives it reached last
  double wait_ms = 0;                // how long it waited in the matched collectives for the
                                     // last rank to arrive, per step
  std::optional<UnprofiledSteps> unprofiled = std::nullopt;  // absent where the door timed none
                                                            // (a trace)
  std::optional<int> node = std::nullopt;  // its node, where the job ran on several (GROUP_RANK)
};

// One node of a job that ran on several, each bisected by its own advisor (docs/script-mode.md,
// "Several nodes"): the summary it wrote, and its clock against node 0's.
struct NodeInfo {
  int node = 0;                      // GROUP_RANK
  std::string host;
  std::vector<int> ranks;
  std::string file;                  // its summary: "nodes/node-1.json" in the report folder
  // Its clock less node 0's, estimated from the ends of the collectives every rank shares (they
  // end together on every rank): the median difference, and the median absolute deviation of
  // the differences from it. 0 and 0 for node 0, and where no collective was matched.
  double clock_offset_ms = 0;
  double clock_spread_ms = 0;
  int clock_samples = 0;             // the matched collectives the estimate rests on
  std::string hotspot;               // its own bisection's hot spot, "path -> op"; "" when none
};

// The rank the others wait for, and what on it made it late: its costs beyond the median of the
// other ranks'.
struct Straggler {
  int rank = 0;
  double late_ms = 0;                // its RankSummary::late_ms
  // How late it surely is per step, beyond the other ranks: the lower end of the 95 % interval
  // over the steps (SureLateMs); at most late_ms, less the noisier the steps.
  double sure_late_ms = 0;
  double last_share = 0;             // of the matched collectives, the share it reached last
  double compute_excess_ms = 0;      // its compute beyond the others' median, per step
  std::optional<double> data_wait_excess_ms;  // likewise its wait for data, where measured
  std::string path;                  // the module with the largest excess; "" when none named
  double path_excess_ms = 0;
  std::string op;                    // the op with the largest excess
  std::string op_phase;
  double op_excess_ms = 0;
  // Whether the excess is there outside the profiled windows too (engine/multi_rank/
  // unprofiled_check.h): its data wait and forward beyond the other ranks' median per step, in
  // the profiled steps and in those timed without a profiler. All absent where the door timed
  // none (a folder of traces): there it cannot be checked.
  std::optional<double> pre_backward_excess_ms;
  std::optional<double> unprofiled_excess_ms;
  std::optional<bool> holds_unprofiled;  // false: taken for the measurement's own effect
};

// Across the ranks: collectives matched by process group and sequence number (or by order where
// the traces carry no sequence numbers), their skew, each rank's timing, the straggler.
struct DistributedSummary {
  int world_size = 0;               // distributedInfo's, else the number of traces
  std::string backend;              // "nccl", "gloo"; "" when the traces do not say
  int collectives_matched = 0;      // found on every rank
  int collectives_unmatched = 0;    // found on some ranks only
  double skew_median_ms = 0;        // per matched collective: latest arrival minus earliest
  double skew_max_ms = 0;
  std::vector<RankSummary> ranks;   // by rank
  std::optional<Straggler> straggler;  // absent when no rank is consistently late
  std::vector<NodeInfo> nodes;      // by node, where the job ran on several; empty otherwise
};

// A report section the front door could not measure, and why: reports say so instead of showing
// zeros (a trace has no bisection levels; a CPU trace has no GPU section).
struct AbsentSection {
  std::string section;  // the report.json key: "bisection", "hotspot", "gpu", ...
  std::string reason;
};

// What the training holds in each process and how it synchronises gradients, measured by the
// script probe in the first step (after its optimizer step, while the gradients are there):
// the tensors' own bytes, so under FSDP this rank's shards.
struct TrainingState {
  double parameter_mb = 0;        // the parameters the optimizers train
  double gradient_mb = 0;         // their gradients
  double optimizer_state_mb = 0;  // the optimizers' state (AdamW: two moments per parameter)
  std::string wrapper;            // "DistributedDataParallel", "FullyShardedDataParallel", ""
  std::string sharding_strategy;  // FSDP's ("FULL_SHARD", "SHARD_GRAD_OP", ...); "" otherwise
  int micro_steps = 0;            // the wrapper's forward passes in the step; 0 without a wrapper
  int synced_micro_steps = 0;     // of them, those whose backward all-reduced the gradients
};

struct BisectReport {
  RunInfo run;
  StepBreakdown step;
  std::vector<BisectLevel> levels;
  // Why the bisection's answer is in doubt: a level unclear in two windows, a choice that changed
  // on re-run, other work holding the CPUs. A hot spot then has confidence "low"; "no module
  // stands out" is as unsure. report.json has them as data_quality lines beginning
  // "low confidence: ".
  std::vector<std::string> doubts;
  // What the levels compared: "device" (kernel time their ops launched) on a step that kept the
  // device busy, "host" (the ops' host time) on the CPU and on a host-bound GPU step; "" without
  // a bisection (a trace).
  std::string levels_ranked_by;
  std::optional<Hotspot> hotspot;
  CrossCheck cross_check;
  std::vector<ModuleStats> modules;
  std::vector<OpTime> ops;               // whole-step op table, hottest first
  std::optional<GpuSummary> gpu;         // absent without a GPU probe
  std::vector<SyncSite> syncs;
  std::vector<CopySite> copies;
  std::optional<MemoryStats> memory;     // absent on CPU
  std::optional<DataWait> data;          // absent without an input stage
  std::vector<Finding> findings;
  std::vector<FixResult> fixes;
  std::vector<std::string> data_quality;  // one line each: probes absent, records dropped, rule errors
  std::vector<AbsentSection> absent;      // sections this front door cannot fill
  std::optional<DistributedSummary> distributed;  // several ranks' traces (advisor analyze)
  std::optional<TrainingState> training_state;    // script mode: rank 0's under a launcher
};

}  // namespace advisor
