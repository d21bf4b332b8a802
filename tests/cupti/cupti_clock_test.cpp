#include "probes/cupti/cupti_clock.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

TEST(CuptiClockMap, ConstantOffsetShiftsEveryTime) {
  const CuptiClockMap clock({1'000, 5'000, 0}, {2'000, 6'000, 0});
  EXPECT_EQ(clock.ToSteady(1'000), 5'000);
  EXPECT_EQ(clock.ToSteady(1'500), 5'500);
  EXPECT_EQ(clock.ToSteady(2'000), 6'000);
  EXPECT_EQ(clock.drift_ns(), 0);
}

TEST(CuptiClockMap, InterpolatesDriftBetweenTheTwoReadings) {
  // The CUPTI clock runs 100 ns slow over the window: the offset grows from 9'000 to 9'100.
  const CuptiClockMap clock({1'000'000, 1'009'000, 0}, {2'000'000, 2'009'100, 0});
  EXPECT_EQ(clock.drift_ns(), 100);
  EXPECT_EQ(clock.ToSteady(1'000'000), 1'009'000);
  EXPECT_EQ(clock.ToSteady(1'500'000), 1'509'050);
  EXPECT_EQ(clock.ToSteady(1'750'000), 1'759'075);
  EXPECT_EQ(clock.ToSteady(2'000'000), 2'009'100);
}

TEST(CuptiClockMap, HoldsTheNearerOffsetOutsideTheWindow) {
  const CuptiClockMap clock({1'000'000, 1'009'000, 0}, {2'000'000, 2'009'100, 0});
  EXPECT_EQ(clock.ToSteady(500'000), 509'000);
  EXPECT_EQ(clock.ToSteady(3'000'000), 3'009'100);
}

TEST(CuptiClockMap, WithoutAStopReadingTheStartOffsetHolds) {
  const CuptiClockMap clock({1'000, 4'000, 0}, {});
  EXPECT_EQ(clock.ToSteady(10'000), 13'000);
  EXPECT_EQ(clock.drift_ns(), 0);
}

TEST(CuptiClockMap, HandlesWallClockSizedCuptiTimesAgainstASmallSteadyClock) {
  // CUPTI on Linux reads like the wall clock (~1.8e18 ns); steady_clock counts from boot.
  const std::uint64_t cupti_start = 1'795'305'226'554'315'215ull;
  const std::uint64_t minute = 60'000'000'000ull;
  const CuptiClockMap clock({cupti_start, 12'345'678'901'234, 0},
                            {cupti_start + minute, 12'345'678'901'234 + 60'000'002'000, 0});
  EXPECT_EQ(clock.drift_ns(), 2'000);
  EXPECT_EQ(clock.ToSteady(cupti_start + minute / 2), 12'345'678'901'234 + 30'000'001'000);
}

}  // namespace
}  // namespace advisor
