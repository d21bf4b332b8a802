#include "engine/autotest/autotest_budget.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

using Clock = AutotestBudget::Clock;
using std::chrono::seconds;

const Clock::time_point kStart = Clock::time_point() + std::chrono::hours(1);

TEST(AutotestBudget, WithoutALimitThereIsAlwaysRoom) {
  AutotestBudget budget(std::nullopt, kStart);
  budget.RecordRound(seconds(100));
  EXPECT_TRUE(budget.RoomForRound(kStart + std::chrono::hours(10)));
  EXPECT_EQ(budget.DescribeLimit(), "");
  EXPECT_EQ(budget.DescribeTimeLeft(3, kStart + seconds(100)), "at most 5m00s left");
}

TEST(AutotestBudget, ARoundFitsOnlyWhenItsAverageCostEndsWithinTheLimit) {
  AutotestBudget budget(seconds(60), kStart);
  EXPECT_TRUE(budget.RoomForRound(kStart + seconds(59)));  // nothing measured yet
  EXPECT_FALSE(budget.RoomForRound(kStart + seconds(61)));
  budget.RecordRound(seconds(10));
  budget.RecordRound(seconds(20));
  EXPECT_TRUE(budget.RoomForRound(kStart + seconds(45)));  // 45 + 15 = 60
  EXPECT_FALSE(budget.RoomForRound(kStart + seconds(46)));
  EXPECT_EQ(budget.DescribeLimit(), "1m00s");
}

TEST(AutotestBudget, TimeLeftIsTheRoundsLeftAtTheAverageCostCappedByTheLimit) {
  AutotestBudget budget(seconds(600), kStart);
  EXPECT_EQ(budget.DescribeTimeLeft(4, kStart), "");  // nothing to estimate from
  budget.RecordRound(seconds(30));
  EXPECT_EQ(budget.DescribeTimeLeft(4, kStart + seconds(30)), "at most 2m00s left");
  EXPECT_EQ(budget.DescribeTimeLeft(40, kStart + seconds(30)), "at most 9m30s left");
  EXPECT_EQ(budget.DescribeTimeLeft(0, kStart + seconds(30)), "at most 0s left");
}

}  // namespace
}  // namespace advisor
