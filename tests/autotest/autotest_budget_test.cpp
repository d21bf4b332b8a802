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

TEST(AutotestBudget, WorkOfAKnownCostFitsOnlyWhenItEndsWithinTheLimit) {
  AutotestBudget budget(seconds(60), kStart);
  budget.RecordRound(seconds(50));  // a process round's price does not enter it
  EXPECT_TRUE(budget.RoomFor(seconds(20), kStart + seconds(40)));
  EXPECT_FALSE(budget.RoomFor(seconds(21), kStart + seconds(40)));
  EXPECT_TRUE(AutotestBudget(std::nullopt, kStart).RoomFor(std::chrono::hours(5), kStart));
}

TEST(AutotestBudget, TimeLeftIsTheRoundsLeftAtTheAverageCostCappedByTheLimit) {
  AutotestBudget budget(seconds(600), kStart);
  EXPECT_EQ(budget.DescribeTimeLeft(4, kStart), "");  // nothing to estimate from
  budget.RecordRound(seconds(30));
  EXPECT_EQ(budget.DescribeTimeLeft(4, kStart + seconds(30)), "at most 2m00s left");
  EXPECT_EQ(budget.DescribeTimeLeft(40, kStart + seconds(30)), "at most 9m30s left");
  EXPECT_EQ(budget.DescribeTimeLeft(0, kStart + seconds(30)), "at most 0s left");
}

TEST(AutotestBudget, SaysWhatABiggerBudgetWouldRun) {
  AutotestBudget budget(seconds(40), kStart);
  EXPECT_EQ(budget.DescribeBudgetFor(3, kStart + seconds(45)), "") << "no round to go by";
  budget.RecordRound(seconds(30));
  EXPECT_EQ(budget.DescribeBudgetFor(3, kStart + seconds(45)),
            "a budget of at least 2m15s would run its 3 rounds, at about 30s each here");
  EXPECT_EQ(AutotestBudget(std::nullopt, kStart).DescribeBudgetFor(3, kStart), "");
}

}  // namespace
}  // namespace advisor
