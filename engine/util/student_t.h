// Student's t quantile, for intervals over a handful of measurements (A/B rounds, steps).
#pragma once

#include <cmath>

namespace advisor {

// The two-sided 95 % quantile with `degrees` degrees of freedom (the one-sided 97.5 % one);
// infinite below 1: no interval from a single value.
inline double StudentT95(int degrees) {
  static constexpr double kQuantiles[] = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  constexpr int kTabulated = sizeof kQuantiles / sizeof kQuantiles[0];
  if (degrees < 1) return INFINITY;
  if (degrees <= kTabulated) return kQuantiles[degrees - 1];
  return degrees <= 60 ? 2.000 : degrees <= 120 ? 1.980 : 1.960;
}

}  // namespace advisor
