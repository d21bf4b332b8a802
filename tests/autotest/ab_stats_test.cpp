#include "engine/autotest/ab_stats.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

TEST(AbStats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({}), 0);
}

TEST(AbStats, SummarizesAllStepsOfAllRounds) {
  const AbMeasurement m = MeasureAb({{{10, 12, 11}, {5, 6, 5}}, {{9, 10, 30}, {5, 5, 4}}}, 8, 8);
  EXPECT_DOUBLE_EQ(m.baseline.median_ms, 10.5);  // of 9 10 10 11 12 30
  EXPECT_DOUBLE_EQ(m.baseline.min_ms, 9);
  EXPECT_DOUBLE_EQ(m.baseline.max_ms, 30);
  EXPECT_EQ(m.baseline.samples, 6);
  EXPECT_DOUBLE_EQ(m.candidate.median_ms, 5);
  EXPECT_DOUBLE_EQ(m.speedup, 10.5 / 5);
  // Per round: 11 / 5 and 10 / 5.
  EXPECT_DOUBLE_EQ(m.speedup_low, 2.0);
  EXPECT_DOUBLE_EQ(m.speedup_high, 2.2);
  EXPECT_DOUBLE_EQ(m.baseline_samples_per_s, 8 * 1000 / 10.5);
  EXPECT_DOUBLE_EQ(m.candidate_samples_per_s, 8 * 1000 / 5.0);
}

TEST(AbStats, SpeedupComparesThroughputWhenTheBatchChanges) {
  // Twice the batch in 1.8 times the step time: 11 % more samples per second, although each step
  // is slower.
  const AbMeasurement m = MeasureAb({{{10}, {18}}}, 64, 128);
  EXPECT_DOUBLE_EQ(m.baseline_samples_per_s, 6400);
  EXPECT_NEAR(m.candidate_samples_per_s, 7111.11, 0.01);
  EXPECT_NEAR(m.speedup, 10.0 / 9.0, 1e-12);
  EXPECT_NEAR(m.speedup_low, 10.0 / 9.0, 1e-12);
}

AbMeasurement Ratios(double speedup, std::vector<double> rounds) {
  AbMeasurement m;
  m.speedup = speedup;
  m.round_ratios = std::move(rounds);
  return m;
}

TEST(AbStats, SignTestTailProbabilities) {
  EXPECT_DOUBLE_EQ(SignTestP(5, 5), 1.0 / 32);
  EXPECT_DOUBLE_EQ(SignTestP(4, 5), 6.0 / 32);
  EXPECT_DOUBLE_EQ(SignTestP(7, 8), 9.0 / 256);
  EXPECT_DOUBLE_EQ(SignTestP(0, 8), 1.0);
}

TEST(AbStats, NoMeasurableChangeWhenTooFewRoundsAgreeOrTheGainIsSmall) {
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.08, {1.08, 0.99, 1.12, 1.1, 1.09}), 0.02),
            "4 of 5 rounds faster (sign test p = 0.19, above 0.05)");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.08, {1.08, 1.05, 1.12, 1.1, 1.09}), 0.02), "");
  // With 8 rounds, one round disturbed by another process does not decide; two do.
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.1, {1.1, 0.76, 1.12, 1.1, 1.09, 1.1, 1.13, 1.1}), 0.02),
            "");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.1, {1.1, 0.76, 1.12, 0.9, 1.09, 1.1, 1.13, 1.1}), 0.02),
            "6 of 8 rounds faster (sign test p = 0.14, above 0.05)");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.0, {1.0, 1.0, 1.0, 1.0, 1.0}), 0.02),
            "0 of 5 rounds slower (sign test p = 1.00, above 0.05)");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.015, {1.01, 1.02, 1.01, 1.02, 1.015}), 0.02),
            "within the 2.0 % noise threshold");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(0.80, {0.8, 0.78, 0.83, 0.81, 0.8}), 0.02),
            "");  // a measurable slowdown
  EXPECT_NE(WhyNoMeasurableChange(Ratios(1.08, {1.08, 1.05, 1.12, 1.1, 1.09}), 0.10),
            "");  // the threshold is a setting
}

}  // namespace
}  // namespace advisor
