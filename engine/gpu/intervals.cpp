#include "engine/gpu/intervals.h"

#include <algorithm>

namespace advisor {

std::vector<Interval> UnionWithin(std::vector<Interval> intervals, const Interval& window) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> merged;
  for (Interval interval : intervals) {
    interval.start = std::max(interval.start, window.start);
    interval.end = std::min(interval.end, window.end);
    if (interval.end <= interval.start) continue;
    if (!merged.empty() && interval.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, interval.end);
    } else {
      merged.push_back(interval);
    }
  }
  return merged;
}

TimeNs TotalLength(const std::vector<Interval>& disjoint) {
  TimeNs total = 0;
  for (const Interval& interval : disjoint) total += interval.end - interval.start;
  return total;
}

TimeNs LargestGap(const std::vector<Interval>& disjoint, const Interval& window) {
  TimeNs largest = 0;
  TimeNs covered_until = window.start;
  for (const Interval& interval : disjoint) {
    largest = std::max(largest, interval.start - covered_until);
    covered_until = interval.end;
  }
  return std::max(largest, window.end - covered_until);
}

}  // namespace advisor
