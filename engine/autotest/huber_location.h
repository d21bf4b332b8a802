// The centre of a handful of A/B rounds' log ratios that a few wild rounds do not move: Huber's
// M-estimator. On a busy machine some rounds are hit by other processes' work (a neighbour's
// compile slows one block of a pair, not the other), and their log ratios lie far out: a mean
// follows them and their square swells a sample variance, so that six pairs could not tell a
// 5 % slowdown from noise (docs/benchmarks.md#the-autotests-controls). Huber's estimate weighs
// the values near the centre as a mean does and caps the pull of the far ones.
#pragma once

#include <vector>

namespace advisor {

struct HuberEstimate {
  double centre = 0;
  // The spread of one value about the centre as the estimator sees it (the sandwich variance
  // s^2 mean(psi^2) / mean(psi')^2, times n / (n - 1)): the centre's variance is this / n. The
  // plain sample variance where no value lies beyond the cap.
  double variance = 0;
};

// The tuning constant: 95 % of a mean's efficiency on normal values.
inline constexpr double kHuberCap = 1.345;

// Values beyond kHuberCap robust standard deviations (1.4826 times the median absolute
// deviation) from the centre count as if they lay at that distance. Where more than half the
// values are equal (no spread to scale by), their mean and sample variance. One value gives
// itself and 0.
HuberEstimate HuberLocation(const std::vector<double>& values);

}  // namespace advisor
