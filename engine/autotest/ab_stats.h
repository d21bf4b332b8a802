// The arithmetic of an A/B benchmark, kept apart from the processes so that it can be checked on
// controlled numbers.
//
// What is compared is throughput, read from each side's steps by one of three statistics
// (StepStatistic). The fastest step by default: the machine's other work only ever adds to a
// step, and on a busy machine it adds to many of them (on 2 shared cores, 40 % of a 10 ms
// script's steps took 3 ms more, a timer tick late): a median of 5 steps moved whenever 3 were
// hit, a third of the blocks, and the fastest of them almost never
// (docs/benchmarks.md#the-autotests-controls). For a workload that waits for its input, the
// mean step, the time a run takes per step with its stalls: a DataLoader that restarts its
// workers every epoch stalls one step in six and leaves the median untouched (persistent-workers,
// which took a 30-epoch run from 14.3 to 2.9 s, read as 0.94x by medians), and prefetched batches
// make waits come in bursts that a median steps over. Means everywhere made a 3x rewrite on a
// 5 ms CPU step "no change" under ctest's parallel load: there the long steps were the other
// tests'. The median remains for `advisor diff`, which compares two reports' medians.
//
// The unit of evidence is the round: one baseline process and one candidate process after it
// (or a pair of blocks inside one run). Steps inside one process share its memory layout, clocks
// and neighbours, so a thousand steps of one process are not a thousand independent samples;
// rounds are. The speedup is Huber's centre of the rounds' log ratios (engine/autotest/
// huber_location.h: a round a neighbour's burst hit does not move it), and its interval Student's
// t (n - 2 degrees of freedom) around that centre, the rounds' spread pooled with what their own
// steps imply, counted as one more round's (two rounds that agree by chance do not make a
// zero-width interval).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/util/median.h"
#include "engine/util/student_t.h"  // StudentT95: kIntervalConfidence's quantile

namespace advisor {

// One round: the measured steps of one baseline process and of the candidate process after it,
// or of a pair of blocks; the report keeps them as they are (FixResult::pairs).
using AbRound = StepPair;

struct SpeedupInterval {
  double low = 0;
  double high = 0;
};

inline constexpr double kIntervalConfidence = 0.95;

// Which step time a side's throughput is read from.
enum class StepStatistic {
  kMin,     // the fastest step: the one the machine's other work slowed least
  kMedian,  // robust to fewer than half the steps slowed (advisor diff's)
  kMean,    // stalls included: a workload whose step waits for its input stage or DataLoader
};

const char* StepStatisticName(StepStatistic statistic);  // FixResult::step_statistic's words

struct AbMeasurement {
  BenchStats baseline;  // over all measured steps of all rounds
  BenchStats candidate;
  double baseline_samples_per_s = 0;  // samples per step / the statistic's step of all steps
  double candidate_samples_per_s = 0;
  // Candidate throughput / baseline throughput: Huber's centre of the rounds' log ratios (their
  // geometric mean where no round lies far out), the centre of `interval`. Rounds, not pooled
  // steps: pooled, a round whose candidate ran fast would count once per step.
  double speedup = 0;
  double speedup_low = 0;            // smallest of the per-round ratios
  double speedup_high = 0;           // largest of the per-round ratios
  std::vector<double> round_ratios;  // each round's baseline step / candidate step, per sample
  // The kIntervalConfidence interval of the speedup; none from a single round, which cannot tell
  // a process's luck from the candidate's effect.
  std::optional<SpeedupInterval> interval;
};

BenchStats SummarizeSteps(const std::vector<double>& step_ms);

// Speedup is a ratio of throughputs, so that a recipe that changes the batch size is compared per
// sample; each round's ratio is its baseline step / its candidate step by `statistic`, times the
// samples ratio. Needs at least one round with steps on both sides.
AbMeasurement MeasureAb(const std::vector<AbRound>& rounds, int baseline_samples_per_step,
                        int candidate_samples_per_step, StepStatistic statistic);

// The kIntervalConfidence interval of one round's speedup from its own steps' spread alone (the
// `within` part of MeasureAb's interval): two runs compared after the fact (advisor diff) are one
// round, and this interval cannot tell a process's luck from the change. None with fewer than two
// steps on a side.
std::optional<SpeedupInterval> OneRoundInterval(const AbRound& round, StepStatistic statistic);

// What the rounds so far say, against a noise band of +-`noise_threshold` around 1.0 (0.02 is 2 %).
struct AbDecision {
  enum class Outcome {
    kFaster,     // verified: the interval lies above 1.0 and the speedup beyond the band
    kSlower,     // the interval lies below 1.0 and the speedup beyond the band
    kNoChange,   // within the noise, or not separable from the baseline (see `why`)
    kUndecided,  // more rounds could still decide
  };
  Outcome outcome = Outcome::kUndecided;
  std::string why;  // for kNoChange: why the difference is not measurable
};

// Clear decisions end the benchmark early: the whole interval beyond the band on one side, or
// inside it. With `last_round` (the cap, or the budget, allows no more) every interval is
// settled: faster or slower when it excludes 1.0 and the speedup lies beyond the band, else no
// change.
AbDecision DecideAb(const AbMeasurement& measurement, double noise_threshold, bool last_round);

}  // namespace advisor
