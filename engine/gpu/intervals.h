// Unions of time intervals: how long the device was busy, and its longest stretch of idleness.
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
};

// The union of the intervals' parts inside [window.start, window.end], sorted and disjoint.
std::vector<Interval> UnionWithin(std::vector<Interval> intervals, const Interval& window);

TimeNs TotalLength(const std::vector<Interval>& disjoint);

// How long two unions (each sorted and disjoint, as UnionWithin returns them) cover together:
// communication hidden behind compute, for one.
TimeNs OverlapLength(const std::vector<Interval>& a, const std::vector<Interval>& b);

// The longest stretch of the window that no interval covers, the window's edges included.
TimeNs LargestGap(const std::vector<Interval>& disjoint, const Interval& window);

}  // namespace advisor
