// The arithmetic of an A/B benchmark, kept apart from the processes so that it can be checked on
// controlled numbers.
#pragma once

#include <string>
#include <vector>

#include "engine/report/report.h"
#include "engine/util/median.h"

namespace advisor {

// One round: the measured steps of one baseline process and of the candidate process after it.
struct AbRound {
  std::vector<double> baseline_ms;
  std::vector<double> candidate_ms;
};

struct AbMeasurement {
  BenchStats baseline;  // over all measured steps of all rounds
  BenchStats candidate;
  double baseline_samples_per_s = 0;  // samples per step / median step time
  double candidate_samples_per_s = 0;
  double speedup = 0;       // candidate throughput / baseline throughput
  double speedup_low = 0;   // smallest of the per-round ratios
  double speedup_high = 0;  // largest of the per-round ratios
  std::vector<double> round_ratios;  // each round's baseline median / candidate median, per sample
};

BenchStats SummarizeSteps(const std::vector<double>& step_ms);

// Speedup is a ratio of throughputs, so that a recipe that changes the batch size is compared per
// sample; with equal samples per step it is baseline median / candidate median. Each round's
// ratio uses that round's medians. Needs at least one round with steps on both sides.
AbMeasurement MeasureAb(const std::vector<AbRound>& rounds, int baseline_samples_per_step,
                        int candidate_samples_per_step);

// One-sided sign test: the chance that at least `agreeing` of `rounds` rounds fall on one side of
// 1.0 when candidate and baseline are alike (each round then a fair coin).
double SignTestP(int agreeing, int rounds);

// Why the benchmark cannot tell the candidate from the baseline: too few rounds side with the
// overall speedup for a sign test at 5 % (with 5 rounds all must; with 8, all but one: one round
// disturbed by another process does not decide), or the speedup is within `noise_threshold` of
// 1.0 (0.02 means 2 %). "" when the difference is measurable.
std::string WhyNoMeasurableChange(const AbMeasurement& measurement, double noise_threshold);

}  // namespace advisor
