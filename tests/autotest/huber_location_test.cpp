#include "engine/autotest/huber_location.h"

#include <gtest/gtest.h>

#include <cmath>

namespace advisor {
namespace {

TEST(HuberLocation, ValuesWithinTheCapGiveTheMeanAndTheSampleVariance) {
  const HuberEstimate estimate = HuberLocation({1.0, 2.0, 3.0, 4.0});
  EXPECT_NEAR(estimate.centre, 2.5, 1e-12);
  EXPECT_NEAR(estimate.variance, 5.0 / 3, 1e-12);  // (2.25 + 0.25 + 0.25 + 2.25) / 3
}

// Five pairs near -0.05 and one a burst hit: the mean follows the burst, Huber's centre does
// not, and the burst counts at the cap's distance in the variance, not its own.
TEST(HuberLocation, AFarValuePullsOnlyAsFarAsTheCap) {
  const std::vector<double> values = {-0.050, -0.048, -0.052, -0.049, -0.051, 0.300};
  const HuberEstimate estimate = HuberLocation(values);
  EXPECT_NEAR(estimate.centre, -0.050, 0.002);
  double mean = 0;
  for (double value : values) mean += value / 6;
  EXPECT_GT(mean, 0.008);
  double squares = 0;
  for (double value : values) squares += (value - mean) * (value - mean);
  EXPECT_LT(estimate.variance, squares / 5 / 100);
}

TEST(HuberLocation, MoreThanHalfEqualIsTheMeanAndTheSampleVariance) {
  const HuberEstimate estimate = HuberLocation({1.0, 1.0, 1.0, 4.0});
  EXPECT_NEAR(estimate.centre, 1.75, 1e-12);
  EXPECT_NEAR(estimate.variance, (3 * 0.5625 + 5.0625) / 3, 1e-12);
}

TEST(HuberLocation, OneValueIsItselfWithoutSpread) {
  const HuberEstimate estimate = HuberLocation({0.7});
  EXPECT_DOUBLE_EQ(estimate.centre, 0.7);
  EXPECT_DOUBLE_EQ(estimate.variance, 0);
}

}  // namespace
}  // namespace advisor
