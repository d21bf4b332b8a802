// The training step as measured: its time and phases, and its wait for input with what the input
// stage's work is made of. Sections of RunReport (engine/model/run_report.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/finding.h"

namespace advisor {

// How a door timed the steps it ran without a profiler (StepBreakdown::timing), from the least
// to the most true to the device.
enum class StepTiming {
  // The host's clock: a CPU's steps.
  kHostClock,
  // The host's clock, each step ending in a device synchronisation: the step's time is the
  // device's, its phases are where the host waited.
  kHostClockSynced,
  // CUDA events at each phase boundary: the step and its phases as the GPU ran them
  // (probes/python/site/advisor_probe/device_clock.py).
  kDeviceEvents,
  // Not timed by advisor: the step spans of a torch.profiler trace (advisor analyze), every one
  // of them profiled; no door compares it with the others.
  kProfilerTrace,
};

// "host_clock", "host_clock_synchronised", "cuda_events", "profiler_trace" (report.json's
// step.timed_by).
const char* StepTimingName(StepTiming timing);
// The same for a reader: "host clock", "host clock, ending in a device sync", "CUDA events",
// "the trace's step spans".
const char* StepTimingText(StepTiming timing);

// The phases of a set of steps, each phase's mean over them: with rest_ms they add up to the
// steps' mean.
struct StepPhaseTimes {
  // The wait for the batch; none where the run has no input stage to report (no DataWait), and
  // then the wait is in rest_ms.
  std::optional<double> data_ms;
  double forward_ms = 0;
  std::optional<double> loss_ms;  // a script's loss phase; none where the door has none
  double backward_ms = 0;
  double optimizer_ms = 0;
  double evaluation_ms = 0;
  double rest_ms = 0;
};

// Medians over the baseline's unprofiled steps (timed as `timing` says), and the phases of its
// profiled window (on a GPU synchronised at each phase's end).
struct StepBreakdown {
  double median_ms = 0;
  // The same steps' mean: the time a run takes per step. Above the median where some steps wait
  // far longer than most (a DataLoader's prefetched batches make its waits come in bursts).
  double mean_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  // The steps those four are of, in the order they ran: what `advisor diff` puts an interval on
  // the difference of two runs' steps with (engine/diff).
  std::vector<double> samples_ms;
  StepTiming timing = StepTiming::kHostClock;
  // The phases of those same steps, on the clock that timed them (`timing`): on a GPU script's
  // CUDA events the device's phases of the unprofiled step, where the profiled window's below
  // are its host's, synchronised at each phase's end. They add up to mean_ms, so that `advisor
  // diff` splits the step it compares. None where the door times no phases apart from a profiled
  // window (a trace's steps are all profiled) or the report predates them.
  std::optional<StepPhaseTimes> timed_phases;
  // The phases of the profiled window's mean step (PhasesOfMeanStep), which add up to
  // profiled_ms with the data wait (DataWait::wait_ms), evaluation_ms and rest_ms: every share
  // of the breakdown is of that step.
  double profiled_ms = 0;
  double forward_ms = 0;
  // A script's time between the model's forward returning and backward(): its loss function,
  // metrics, logging (docs/script-mode.md, "Steps"); absent where the door has no such phase (a
  // model.pt's forward holds its loss, a trace does not say). The backward nodes its ops made run
  // in backward_ms.
  std::optional<double> loss_ms;
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

// Whether the input stage's workers supply a batch (the stage's batch time over the workers the
// cores can run) at least as fast as the step computes one (the unprofiled steps' mean less their
// wait for data, the profiled window's wait where they were not timed by phase); none where the
// stage was not measured, there are no workers, or no step was timed.
std::optional<bool> WorkersKeepUp(const DataWait& data, const StepBreakdown& step);

// Workers busy under this share of the window have slack (rules/data_loader_stall.lua).
inline constexpr double kIdleWorkersShare = 0.5;

// Whether the step's data phase is the main process's own work, not a wait for its DataLoader
// workers: they keep up (WorkersKeepUp) and are busy under kIdleWorkersShare of the window, so
// more of them cannot shorten it. It is receiving each batch from them and, in script mode, the
// loop's code between the optimizer step and the next forward (a trainer's hooks and logging,
// zero_grad, the scheduler). bench/user_trial/lightning_docs.py (2026-11-30): 2 workers busy 3 %
// of the window, 0.9 ms a batch, a data phase of 4.1 ms in a 30 ms step; by hand 3.6 ms, 2.1 of
// it in the DataLoader iterator's __next__, and with 4 workers the step was no faster.
bool DataPhaseIsMainProcessWork(const DataWait& data, const StepBreakdown& step);

}  // namespace advisor
