#include "engine/autotest/ab_stats.h"

#include <algorithm>
#include <cmath>

#include "engine/autotest/huber_location.h"
#include "engine/util/mean.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The variance of the log of the fastest of `steps` were they drawn again from the same steps
// (the exact bootstrap: the fastest of n draws is the j-th fastest step with probability
// ((n - j + 1) / n)^n - ((n - j) / n)^n). 0 for fewer than two steps.
double LogFastestVariance(const std::vector<double>& steps) {
  if (steps.size() < 2) return 0;
  std::vector<double> logs;
  logs.reserve(steps.size());
  for (double step : steps) logs.push_back(std::log(step));
  std::sort(logs.begin(), logs.end());
  const double n = static_cast<double>(logs.size());
  std::vector<double> chances;
  chances.reserve(logs.size());
  for (std::size_t j = 0; j < logs.size(); ++j) {
    chances.push_back(std::pow((n - static_cast<double>(j)) / n, n) -
                      std::pow((n - static_cast<double>(j) - 1) / n, n));
  }
  // About the fastest step's log, so that steps without spread give exactly 0.
  double mean = 0;
  for (std::size_t j = 0; j < logs.size(); ++j) mean += chances[j] * (logs[j] - logs[0]);
  double variance = 0;
  for (std::size_t j = 0; j < logs.size(); ++j) {
    variance += chances[j] * std::pow(logs[j] - logs[0] - mean, 2);
  }
  return variance;
}

// The variance of the log of the statistic of `steps` from their own spread. The fastest step's
// by the bootstrap above; a median's or a mean's from the median absolute deviation of the logs
// (sigma 1.4826 MAD, so that stalls do not widen it: a median steps over them; they move a mean,
// and the rounds' own spread shows that): pi/2 sigma^2 / n for a median of a normal spread,
// sigma^2 / n for a mean. 0 for fewer than two steps.
double LogStepVariance(const std::vector<double>& steps, StepStatistic statistic) {
  if (steps.size() < 2) return 0;
  if (statistic == StepStatistic::kMin) return LogFastestVariance(steps);
  std::vector<double> logs;
  logs.reserve(steps.size());
  for (double step : steps) logs.push_back(std::log(step));
  const double center = Median(logs);
  std::vector<double> deviations;
  deviations.reserve(logs.size());
  for (double value : logs) deviations.push_back(std::abs(value - center));
  const double sigma = 1.4826 * Median(deviations);
  const double efficiency = statistic == StepStatistic::kMedian ? kPi / 2 : 1.0;
  return efficiency * sigma * sigma / static_cast<double>(steps.size());
}

double StepOf(const std::vector<double>& steps, StepStatistic statistic) {
  switch (statistic) {
    case StepStatistic::kMin:
      return steps.empty() ? 0 : *std::min_element(steps.begin(), steps.end());
    case StepStatistic::kMedian:
      return Median(steps);
    case StepStatistic::kMean:
      break;
  }
  return Mean(steps);
}

std::vector<double> Logs(const std::vector<double>& ratios) {
  std::vector<double> logs;
  logs.reserve(ratios.size());
  for (double ratio : ratios) logs.push_back(std::log(ratio));
  return logs;
}

// Student's t around Huber's centre of the rounds' log ratios, with the spread the rounds show
// pooled with what their own steps imply, counted as one more round's: n rounds that agree by
// chance do not make a zero-width interval, and the steps' spread, which takes them for
// independent draws, does not outweigh what the rounds themselves show (steps that alternate
// fast and slow, as a timer tick makes them, vary a block's fastest far less than independent
// draws would).
std::optional<SpeedupInterval> IntervalOf(const std::vector<AbRound>& rounds,
                                          const HuberEstimate& estimate, std::size_t count,
                                          StepStatistic statistic) {
  if (count < 2) return std::nullopt;
  double within = 0;  // what each round's own steps make its log ratio vary by, on average
  for (const AbRound& round : rounds) {
    within += LogStepVariance(round.baseline_ms, statistic) +
              LogStepVariance(round.candidate_ms, statistic);
  }
  within /= static_cast<double>(rounds.size());
  const double n = static_cast<double>(count);
  const double pooled = ((n - 1) * estimate.variance + within) / n;
  // The centre and the cap's scale both come from the same rounds: n - 2 degrees of freedom
  // (one at least, so that 2 rounds still decide a large win). With n - 1, a no-op at load
  // average 10 on 2 cores was called a change in 2 of 20 experiments of 6 pairs.
  const int degrees = std::max(1, static_cast<int>(count) - 2);
  const double half_width = StudentT95(degrees) * std::sqrt(pooled / n);
  return SpeedupInterval{std::exp(estimate.centre - half_width),
                         std::exp(estimate.centre + half_width)};
}

}  // namespace

const char* StepStatisticName(StepStatistic statistic) {
  switch (statistic) {
    case StepStatistic::kMin:
      return "min";
    case StepStatistic::kMedian:
      return "median";
    case StepStatistic::kMean:
      break;
  }
  return "mean";
}

BenchStats SummarizeSteps(const std::vector<double>& step_ms) {
  BenchStats stats;
  if (step_ms.empty()) return stats;
  stats.median_ms = Median(step_ms);
  stats.mean_ms = Mean(step_ms);
  const auto [min, max] = std::minmax_element(step_ms.begin(), step_ms.end());
  stats.min_ms = *min;
  stats.max_ms = *max;
  stats.samples = static_cast<int>(step_ms.size());
  return stats;
}

AbMeasurement MeasureAb(const std::vector<AbRound>& rounds, int baseline_samples_per_step,
                        int candidate_samples_per_step, StepStatistic statistic) {
  AbMeasurement measurement;
  std::vector<double> baseline_steps;
  std::vector<double> candidate_steps;
  std::vector<double> round_ratios;
  const double samples_ratio =
      static_cast<double>(candidate_samples_per_step) / baseline_samples_per_step;
  for (const AbRound& round : rounds) {
    baseline_steps.insert(baseline_steps.end(), round.baseline_ms.begin(), round.baseline_ms.end());
    candidate_steps.insert(candidate_steps.end(), round.candidate_ms.begin(),
                           round.candidate_ms.end());
    round_ratios.push_back(StepOf(round.baseline_ms, statistic) /
                           StepOf(round.candidate_ms, statistic) * samples_ratio);
  }
  measurement.baseline = SummarizeSteps(baseline_steps);
  measurement.candidate = SummarizeSteps(candidate_steps);
  measurement.baseline_samples_per_s =
      baseline_samples_per_step * 1000.0 / StepOf(baseline_steps, statistic);
  measurement.candidate_samples_per_s =
      candidate_samples_per_step * 1000.0 / StepOf(candidate_steps, statistic);
  const HuberEstimate estimate = HuberLocation(Logs(round_ratios));
  measurement.speedup = std::exp(estimate.centre);
  const auto [low, high] = std::minmax_element(round_ratios.begin(), round_ratios.end());
  measurement.speedup_low = *low;
  measurement.speedup_high = *high;
  measurement.interval = IntervalOf(rounds, estimate, round_ratios.size(), statistic);
  measurement.round_ratios = std::move(round_ratios);
  return measurement;
}

std::optional<SpeedupInterval> OneRoundInterval(const AbRound& round, StepStatistic statistic) {
  const std::size_t steps = std::min(round.baseline_ms.size(), round.candidate_ms.size());
  if (steps < 2) return std::nullopt;
  const double log_ratio =
      std::log(StepOf(round.baseline_ms, statistic) / StepOf(round.candidate_ms, statistic));
  const double standard_error = std::sqrt(LogStepVariance(round.baseline_ms, statistic) +
                                          LogStepVariance(round.candidate_ms, statistic));
  const double half_width = StudentT95(static_cast<int>(steps) - 1) * standard_error;
  return SpeedupInterval{std::exp(log_ratio - half_width), std::exp(log_ratio + half_width)};
}

AbDecision DecideAb(const AbMeasurement& measurement, double noise_threshold, bool last_round) {
  using Outcome = AbDecision::Outcome;
  const double upper = 1.0 + noise_threshold;
  const double lower = 1.0 - noise_threshold;
  const double speedup = measurement.speedup;
  const int rounds = static_cast<int>(measurement.round_ratios.size());
  if (!measurement.interval) {
    if (!last_round) return {Outcome::kUndecided, ""};
    return {Outcome::kNoChange,
            Printf("%d round cannot tell the candidate from one process's luck (an interval "
                   "needs 2)",
                   rounds)};
  }
  const SpeedupInterval& interval = *measurement.interval;
  if (interval.low > upper) return {Outcome::kFaster, ""};
  if (interval.high < lower) return {Outcome::kSlower, ""};
  const std::string band = Printf("the %.1f %% noise threshold", noise_threshold * 100);
  if (interval.low >= lower && interval.high <= upper) {
    return {Outcome::kNoChange, "the whole interval lies within " + band};
  }
  if (!last_round) return {Outcome::kUndecided, ""};
  if (interval.low > 1.0 && speedup >= upper) return {Outcome::kFaster, ""};
  if (interval.high < 1.0 && speedup <= lower) return {Outcome::kSlower, ""};
  if (std::abs(speedup - 1.0) < noise_threshold) return {Outcome::kNoChange, "within " + band};
  return {
      Outcome::kNoChange,
      Printf("the %.0f %% interval includes %s after %d rounds", kIntervalConfidence * 100,
             interval.low <= 1.0 && interval.high >= 1.0 ? "1.0" : "the noise threshold", rounds)};
}

}  // namespace advisor
