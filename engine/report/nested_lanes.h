// Chrome-trace complete events ("X") on one track must nest or be disjoint. Intervals that
// overlap without nesting (module spans whose ends were inferred, kernels whose converted times
// touch) are spread over extra lanes, each a track of its own.
#pragma once

#include <vector>

#include "engine/gpu/intervals.h"

namespace advisor {

// The lane of each interval, same order; lane 0 holds every interval that nests properly.
std::vector<int> AssignNestedLanes(const std::vector<Interval>& intervals);

}  // namespace advisor
