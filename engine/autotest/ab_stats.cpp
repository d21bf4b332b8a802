#include "engine/autotest/ab_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace advisor {

BenchStats SummarizeSteps(const std::vector<double>& step_ms) {
  BenchStats stats;
  if (step_ms.empty()) return stats;
  stats.median_ms = Median(step_ms);
  const auto [min, max] = std::minmax_element(step_ms.begin(), step_ms.end());
  stats.min_ms = *min;
  stats.max_ms = *max;
  stats.samples = static_cast<int>(step_ms.size());
  return stats;
}

AbMeasurement MeasureAb(const std::vector<AbRound>& rounds, int baseline_samples_per_step,
                        int candidate_samples_per_step) {
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
    round_ratios.push_back(Median(round.baseline_ms) / Median(round.candidate_ms) * samples_ratio);
  }
  measurement.baseline = SummarizeSteps(baseline_steps);
  measurement.candidate = SummarizeSteps(candidate_steps);
  measurement.baseline_samples_per_s =
      baseline_samples_per_step * 1000.0 / measurement.baseline.median_ms;
  measurement.candidate_samples_per_s =
      candidate_samples_per_step * 1000.0 / measurement.candidate.median_ms;
  measurement.speedup = measurement.candidate_samples_per_s / measurement.baseline_samples_per_s;
  const auto [low, high] = std::minmax_element(round_ratios.begin(), round_ratios.end());
  measurement.speedup_low = *low;
  measurement.speedup_high = *high;
  measurement.round_ratios = std::move(round_ratios);
  return measurement;
}

double SignTestP(int agreeing, int rounds) {
  double tail = 0;
  double choose = 1;  // C(rounds, k), built up from k = 0
  for (int k = 0; k <= rounds; ++k) {
    if (k > 0) choose = choose * (rounds - k + 1) / k;
    if (k >= agreeing) tail += choose;
  }
  return tail / std::pow(2.0, rounds);
}

std::string WhyNoMeasurableChange(const AbMeasurement& measurement, double noise_threshold) {
  constexpr double kSignificance = 0.05;
  const bool faster = measurement.speedup > 1.0;
  const int rounds = static_cast<int>(measurement.round_ratios.size());
  const int agreeing = static_cast<int>(
      std::count_if(measurement.round_ratios.begin(), measurement.round_ratios.end(),
                    [faster](double ratio) { return faster ? ratio > 1.0 : ratio < 1.0; }));
  const double p = SignTestP(agreeing, rounds);
  if (p > kSignificance) {
    char text[160];
    std::snprintf(text, sizeof text, "%d of %d rounds %s (sign test p = %.2f, above %.2f)",
                  agreeing, rounds, faster ? "faster" : "slower", p, kSignificance);
    return text;
  }
  if (std::abs(measurement.speedup - 1.0) < noise_threshold) {
    char text[96];
    std::snprintf(text, sizeof text, "within the %.1f %% noise threshold", noise_threshold * 100);
    return text;
  }
  return {};
}

}  // namespace advisor
