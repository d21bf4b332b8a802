#include "engine/report/nested_lanes.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

TEST(NestedLanes, NestedAndDisjointIntervalsShareTheFirstLane) {
  const std::vector<int> lanes =
      AssignNestedLanes({{0, 100}, {10, 50}, {20, 30}, {50, 90}, {100, 200}, {100, 200}});
  EXPECT_EQ(lanes, (std::vector<int>{0, 0, 0, 0, 0, 0}));
}

TEST(NestedLanes, AnIntervalCrossingAnotherGoesToTheNextLane) {
  // [50, 150] starts inside [0, 100] and ends after it.
  const std::vector<int> lanes = AssignNestedLanes({{0, 100}, {50, 150}, {60, 70}, {120, 130}});
  EXPECT_EQ(lanes[0], 0);
  EXPECT_EQ(lanes[1], 1);
  EXPECT_EQ(lanes[2], 0) << "nests inside the first";
  EXPECT_EQ(lanes[3], 0) << "the first lane is free again after 100";
}

TEST(NestedLanes, EveryLaneNests) {
  const std::vector<Interval> intervals = {{0, 10}, {5, 15}, {8, 20}, {12, 14}, {9, 30}, {16, 18}};
  const std::vector<int> lanes = AssignNestedLanes(intervals);
  for (std::size_t a = 0; a < intervals.size(); ++a) {
    for (std::size_t b = 0; b < intervals.size(); ++b) {
      if (a == b || lanes[a] != lanes[b]) continue;
      const Interval& x = intervals[a];
      const Interval& y = intervals[b];
      const bool disjoint = x.end <= y.start || y.end <= x.start;
      const bool nested =
          (x.start <= y.start && y.end <= x.end) || (y.start <= x.start && x.end <= y.end);
      EXPECT_TRUE(disjoint || nested) << a << " and " << b << " share lane " << lanes[a];
    }
  }
}

}  // namespace
}  // namespace advisor
