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

TimeNs OverlapLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  TimeNs total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const TimeNs start = std::max(a[i].start, b[j].start);
    const TimeNs end = std::min(a[i].end, b[j].end);
    if (end > start) total += end - start;
    // The one that ends first cannot overlap anything later in the other.
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
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
