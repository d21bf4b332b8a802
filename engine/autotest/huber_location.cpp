#include "engine/autotest/huber_location.h"

#include <algorithm>
#include <cmath>

#include "engine/util/mean.h"
#include "engine/util/median.h"

namespace advisor {
namespace {

constexpr int kMaxIterations = 100;

double MadSigma(const std::vector<double>& values, double centre) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double value : values) deviations.push_back(std::abs(value - centre));
  return 1.4826 * Median(deviations);
}

}  // namespace

HuberEstimate HuberLocation(const std::vector<double>& values) {
  const double n = static_cast<double>(values.size());
  if (values.size() < 2) return {values.empty() ? 0 : values.front(), 0};
  const double median = Median(values);
  const double scale = MadSigma(values, median);
  if (scale == 0) {
    // No spread to scale the cap by: every value counts, as in a mean (a median here would take
    // 3 rounds of 5 that agree for all 5).
    const double mean = Mean(values);
    double squares = 0;
    for (double value : values) squares += (value - mean) * (value - mean);
    return {mean, squares / (n - 1)};
  }
  // Reweighted means from the median: each value weighs 1 within the cap, cap / distance
  // beyond it.
  const double cap = kHuberCap * scale;
  double centre = median;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    double weighted = 0;
    double weights = 0;
    for (double value : values) {
      const double distance = std::abs(value - centre);
      const double weight = distance <= cap ? 1.0 : cap / distance;
      weighted += weight * value;
      weights += weight;
    }
    const double next = weighted / weights;
    const bool settled = std::abs(next - centre) <= 1e-12 * scale;
    centre = next;
    if (settled) break;
  }
  double psi_squares = 0;  // in units of the scale
  double within_cap = 0;   // psi' is 1 inside the cap, 0 beyond it
  for (double value : values) {
    const double psi = std::clamp((value - centre) / scale, -kHuberCap, kHuberCap);
    psi_squares += psi * psi;
    within_cap += std::abs(value - centre) <= cap ? 1.0 : 0.0;
  }
  // Half the values lie within a median absolute deviation of the median, which the centre
  // stays near; the guard is for rounding alone.
  const double slope = std::max(within_cap, 1.0) / n;
  return {centre, scale * scale * (psi_squares / n) / (slope * slope) * n / (n - 1)};
}

}  // namespace advisor
