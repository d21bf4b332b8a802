#include "engine/gpu/intervals.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

TEST(Intervals, UnionMergesOverlapsAndClipsToTheWindow) {
  const auto merged = UnionWithin({{50, 120}, {0, 20}, {10, 30}, {30, 40}, {200, 300}, {90, 100}},
                                  Interval{5, 250});
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].start, 5);
  EXPECT_EQ(merged[0].end, 40);
  EXPECT_EQ(merged[1].start, 50);
  EXPECT_EQ(merged[1].end, 120);
  EXPECT_EQ(merged[2].start, 200);
  EXPECT_EQ(merged[2].end, 250);
  EXPECT_EQ(TotalLength(merged), 35 + 70 + 50);
}

TEST(Intervals, DropsIntervalsOutsideTheWindow) {
  EXPECT_TRUE(UnionWithin({{0, 10}, {300, 400}}, Interval{10, 300}).empty());
}

TEST(Intervals, LargestGapCountsTheWindowEdges) {
  const Interval window{0, 1000};
  EXPECT_EQ(LargestGap({{400, 500}, {600, 700}}, window), 400);  // leading edge
  EXPECT_EQ(LargestGap({{0, 100}, {150, 200}}, window), 800);    // trailing edge
  EXPECT_EQ(LargestGap({{0, 100}, {700, 1000}}, window), 600);   // between
  EXPECT_EQ(LargestGap({}, window), 1000);
  EXPECT_EQ(LargestGap({{0, 1000}}, window), 0);
}

}  // namespace
TEST(Intervals, OverlapOfTwoUnions) {
  const std::vector<Interval> communication = {{0, 10}, {20, 30}, {40, 50}};
  const std::vector<Interval> compute = {{5, 25}, {28, 29}, {60, 70}};
  EXPECT_EQ(OverlapLength(communication, compute), 5 + 5 + 1);
  EXPECT_EQ(OverlapLength(compute, communication), 11);
  EXPECT_EQ(OverlapLength(communication, {}), 0);
}

}  // namespace advisor
