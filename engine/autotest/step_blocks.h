// Candidates measured inside one running process: the baseline and each candidate alternate in
// blocks of steps (A B, then B A), switched between steps by the door (the script probe's
// blocks.py), so that start-up, warmed caches and the machine's drift fall on both sides alike,
// and a knob costs a few seconds of steps instead of a process per round. Only knobs a running
// step reads as it runs can be switched so (SwitchesBetweenSteps); the rest need processes
// (engine/autotest/ab_benchmark.h).
//
// The unit of evidence is the cycle's pair of blocks, one baseline and one candidate, adjacent
// in time: an AbRound, as a pair of processes is elsewhere, so the same estimator, interval and
// decision apply (engine/autotest/ab_stats.h).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/autotest/ab_stats.h"
#include "engine/autotest/candidate.h"
#include "engine/model/fixes.h"

namespace advisor {

struct BlockDesign {
  // After each switch, left out (cuDNN's search, autocast's weight casts). Where a DataLoader with
  // workers feeds the steps, a block whose side may be faster than the block before it leaves out
  // as many more as the batches the loader holds ready (BlocksResult::loader_queue): after slower
  // steps it would be served from that full queue. Blocks differ in length so.
  int settle_steps = 2;
  // Timed per block at least: a candidate's side faster than the baseline times more, as many as
  // make its block about as long as a baseline block, up to 4 times as many (the probe's
  // LONGEST_BLOCK; docs/recipes.md#measured-inside-the-running-script).
  int block_steps = 5;
  int cycles = 6;  // pairs of blocks per candidate at most
};

// Whether every knob `candidate` sets can be switched between two steps of a running script:
// backend flags, autocast around the model's forward, the intra-op thread count, torch.compile
// (each root keeps its own forward and a compiled one, and the switch is which it calls).
// Environment variables, rewrites and knobs that rebuild what the script constructs need a
// process.
bool SwitchesBetweenSteps(const CandidateSpec& candidate);

// What the process timed, block by block.
struct StepBlock {
  std::string candidate;  // the candidate's id
  bool baseline = false;  // its baseline block, else its candidate block
  int cycle = 0;
  // The steps after its switch, left out: the design's settle steps, and the loader's queue after
  // them where the block drained it (or fewer, where the script ended in them).
  std::vector<double> settle_ms;
  std::vector<double> step_ms;
  // Each timed step's wait for its batch from the DataLoader feeding the steps (its __next__);
  // empty where no DataLoader fed them, else one a timed step.
  std::vector<double> loader_wait_ms;
  // The timed steps (indices into step_ms, rising) whose batch was an epoch's first: a fresh
  // iterator's, which finds the loader's queue empty and waits for a worker to make it, a wait a
  // long run pays once an epoch. The pairs leave them out and count an epoch's start once an
  // epoch instead (EpochStart).
  std::vector<int> epoch_starts;
  // On a GPU, where the steps are timed by events on the device: how long the host waited for the
  // device to finish the block's last timed step once it had fetched the next step's batch, the
  // lead it kept over the device there. A long run's epoch start idles the device for the first
  // batch's extra wait less this lead (EpochStart). None on the host's clock, or where the next
  // batch began an epoch (its wait used up the lead).
  std::optional<double> host_lead_ms;
  std::optional<double> peak_memory_mb;  // none without a CUDA allocator
};

// The probe's numerics check of one candidate inside the run, before the blocks began
// (probes/python/site/advisor_probe/numerics_check.py): the model's outputs under the baseline and
// the candidate on the same call from the same weights.
struct InRunNumerics {
  std::string error;   // non-empty: the check could not run (its forward raised), and why
  Numerics numerics;   // max_rel_diff infinite where an output was not finite or did not match
  std::string detail;  // the tensor closest to its tolerance, in words
};

struct BlocksResult {
  std::vector<StepBlock> blocks;
  // By candidate id, the candidates whose numerics the run checked; none before the check ran.
  std::map<std::string, InRunNumerics> numerics;
  bool complete = false;  // the schedule ran to its end (else the script ended first)
  int samples_per_step = 0;
  std::optional<double> loss;      // the last loss; none when it was not finite
  std::optional<double> warmup_s;  // the warm-up before the first block
  // The batches the DataLoader feeding the steps holds ready (workers x prefetch_factor), which
  // the probe added to the settle steps of each block that drained it; 0 without workers, or from
  // an older probe.
  int loader_queue = 0;
  // That DataLoader's epoch, in batches (len(loader)); none where it has no length (an iterable
  // Dataset) or no DataLoader fed the steps.
  std::optional<int> epoch_batches;
  // The host's wait for every epoch's first batch after the warm-up, timed steps or not: the
  // loader's cost, whichever side ran.
  std::vector<double> epoch_start_waits_ms;
};

class BlocksResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The probe's file (docs/recipes.md#measured-inside-the-running-script), untrusted: anything
// malformed throws BlocksResultError naming the file and the field.
BlocksResult ParseBlocksResult(const std::string& json_text, const std::string& source);
BlocksResult ReadBlocksResult(const std::string& path);

// One candidate's rounds: each cycle whose baseline and candidate blocks both ran all
// `block_steps` steps (a block the script's end cut short is left out), in cycle order.
// What an epoch's start costs a long run of the script, from a run of blocks. A fresh iterator's
// first batch waits for the DataLoader's workers to fill an empty queue (about 300 ms on the seed
// ViT on the H200, against 55-168 ms steps), once every `epoch_batches` steps. A block of a few
// steps crosses a start by chance, so that step is no pair's to compare; a long run pays it once
// an epoch. What it pays differs by side: on a GPU the device idles for the wait only once it
// has run out of the work the host queued ahead of it, so a GPU-bound side hides part of the wait
// behind its lead and a side that keeps the host busy pays all of it (the seed's baseline lost
// 144 ms an epoch, its TF32 side 337 ms: docs/benchmarks.md).
struct EpochStart {
  // The mean wait for an epoch's first batch (BlocksResult::epoch_start_waits_ms) less the mean
  // wait of the timed steps that began none: the loader's, whichever side ran, at least 0.
  double extra_wait_ms = 0;
  int starts = 0;         // the waits it was read from
  int epoch_batches = 0;  // the loader's epoch (len(loader)), > 0
};

// None where the loader's epoch has no length or no epoch began after the warm-up.
std::optional<EpochStart> EpochStartOf(const BlocksResult& result);

// The median lead of one side's full blocks of `candidate` (StepBlock::host_lead_ms); none where
// none reported one (the host timed the steps).
std::optional<double> SideHostLeadMs(const BlocksResult& result, const std::string& candidate,
                                     bool baseline, int block_steps);

// The median timed step of one side's full blocks of `candidate`; none where it has none.
std::optional<double> SideMedianStepMs(const BlocksResult& result, const std::string& candidate,
                                       bool baseline, int block_steps);

// One side's lead (SideHostLeadMs; 0 where the host timed its steps) and what an epoch's start
// costs it: the extra wait less that lead, at least 0.
struct SideEpochStart {
  double host_lead_ms = 0;
  double cost_ms = 0;  // per epoch
};

// What an epoch's start costs each side of one candidate's blocks, read once from a run of
// blocks: its pairs count it (CandidateRounds), its fix reports it.
struct EpochStartShares {
  SideEpochStart baseline;
  SideEpochStart candidate;
  int epoch_batches = 0;  // the loader's epoch, > 0

  const SideEpochStart& Side(bool baseline_side) const {
    return baseline_side ? baseline : candidate;
  }
  // The side's cost spread over the epoch's batches: what each of its steps pays in a long run.
  double PerStepMs(bool baseline_side) const { return Side(baseline_side).cost_ms / epoch_batches; }
};
EpochStartShares EpochStartSharesOf(const EpochStart& start, const BlocksResult& result,
                                    const std::string& candidate, int block_steps);

// The candidate's pairs of full blocks, a cycle each. With `shares`, each block's steps as a long
// run has them: its steps that began an epoch left out (where others remain; a block of nothing
// else already pays a start a step), and its side's share added to every step.
std::vector<AbRound> CandidateRounds(const BlocksResult& result, const std::string& candidate,
                                     int block_steps,
                                     const std::optional<EpochStartShares>& shares = {});

// The blocks that left out more than `settle_steps` steps after their switch: those that drained
// the DataLoader's queue.
int DrainedBlocks(const BlocksResult& result, int settle_steps);

// What a run of blocks cost, to price another run of the same script: everything outside its
// blocks (the script's start-up, the warm-up, the numerics check) and its mean block. Blocks
// differ in length (a block drains the loader's queue only after slower steps), so a run of
// other blocks is priced by the mean one.
struct BlocksRunCost {
  double outside_blocks_s = 0;
  double mean_block_s = 0;

  double PriceS(int blocks) const { return outside_blocks_s + blocks * mean_block_s; }
};

// The cost of the run that gave `result` in `wall_s`; all of it outside blocks where it ran none.
BlocksRunCost CostOfBlocksRun(const BlocksResult& result, double wall_s);

// The seconds of the first `settle_steps` settle steps of the candidate's first candidate block
// (the earliest cycle): where the candidate compiles (torch.compile), its compile and a step,
// which no timed step holds; the steps that drained the DataLoader's queue after them are not
// its warm-up. None where that block reported none.
std::optional<double> FirstSettleS(const BlocksResult& result, const std::string& candidate,
                                   int settle_steps);

// The mean wait for a batch per timed step of one side's full blocks of a candidate, the steps
// that began an epoch left out (SideEpochStartWaits has them); none where no DataLoader fed the
// steps.
std::optional<double> SideLoaderWaitMs(const BlocksResult& result, const std::string& candidate,
                                       bool baseline, int block_steps);

// The waits for a batch of one side's timed steps that began an epoch, in its full blocks (the
// steps the mean of SideLoaderWaitMs counts): their count and mean.
struct EpochStartWaits {
  int steps = 0;
  std::optional<double> mean_ms;  // none where no timed step began an epoch
};
EpochStartWaits SideEpochStartWaits(const BlocksResult& result, const std::string& candidate,
                                    bool baseline, int block_steps);

// `into` with `more`'s blocks of `candidate` after its own, their cycles after its last: one
// candidate's blocks from two runs of the script, for the figures read across its blocks (its
// waits for batches, its epochs' starts, its peak memory). Its pairs are read from each run apart
// (CandidateRounds), with that run's epoch-start shares.
void AppendBlocksOf(const BlocksResult& more, const std::string& candidate, BlocksResult& into);

// The highest peak of one side of a candidate's blocks; none where no block reported one.
std::optional<double> SidePeakMemoryMb(const BlocksResult& result, const std::string& candidate,
                                       bool baseline);

}  // namespace advisor
