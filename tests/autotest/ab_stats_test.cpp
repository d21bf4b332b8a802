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

AbMeasurement Ratios(double speedup, double low, double high) {
  AbMeasurement m;
  m.speedup = speedup;
  m.speedup_low = low;
  m.speedup_high = high;
  return m;
}

TEST(AbStats, NoMeasurableChangeWhenRoundsStraddleOneOrTheGainIsSmall) {
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.08, 0.99, 1.12), 0.02),
            "the rounds lie on both sides of 1.0");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.015, 1.01, 1.02), 0.02),
            "within the 2.0 % noise threshold");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(1.08, 1.05, 1.12), 0.02), "");
  EXPECT_EQ(WhyNoMeasurableChange(Ratios(0.80, 0.78, 0.83), 0.02), "");  // a measurable slowdown
  EXPECT_NE(WhyNoMeasurableChange(Ratios(1.08, 1.05, 1.12), 0.10),
            "");  // the threshold is a setting
}

}  // namespace
}  // namespace advisor
