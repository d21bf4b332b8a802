#include "engine/report/nested_lanes.h"

#include <algorithm>
#include <numeric>

namespace advisor {

std::vector<int> AssignNestedLanes(const std::vector<Interval>& intervals) {
  std::vector<std::size_t> order(intervals.size());
  std::iota(order.begin(), order.end(), 0);
  // Enclosing intervals before the ones they enclose.
  std::stable_sort(order.begin(), order.end(), [&intervals](std::size_t a, std::size_t b) {
    if (intervals[a].start != intervals[b].start) return intervals[a].start < intervals[b].start;
    return intervals[a].end > intervals[b].end;
  });

  std::vector<int> lanes(intervals.size(), 0);
  std::vector<std::vector<TimeNs>>
      open_ends;  // per lane, ends of its open intervals, innermost last
  for (std::size_t index : order) {
    const Interval& interval = intervals[index];
    std::size_t lane = 0;
    for (; lane < open_ends.size(); ++lane) {
      std::vector<TimeNs>& ends = open_ends[lane];
      while (!ends.empty() && ends.back() <= interval.start) ends.pop_back();
      if (ends.empty() || ends.back() >= interval.end) break;
    }
    if (lane == open_ends.size()) open_ends.emplace_back();
    open_ends[lane].push_back(interval.end);
    lanes[index] = static_cast<int>(lane);
  }
  return lanes;
}

}  // namespace advisor
