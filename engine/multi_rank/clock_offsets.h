// Each node's clock against node 0's, for a job that ran on several nodes. Every timestamp a probe
// records is on its own host's steady clock, which counts from that host's boot: the ranks of one
// node share a clock, two nodes' clocks differ by an unknown offset (seconds to days).
//
// The assumption: every rank leaves a collective at about the same moment (the last rank's
// arrival releases them all; what separates their ends is the network's latency, microseconds to
// a millisecond). So on each collective matched across the ranks, a rank's end less node 0's is
// its node's clock offset plus that latency, and the median over the matched collectives
// estimates the offset; the median absolute deviation of the differences from it says how well
// the assumption held. Lateness itself needs no common clock (straggler.h: it compares each
// rank's own durations); the offset moves every node's timelines onto node 0's clock, so that
// whatever compares instants across nodes compares like with like. Torch-free.
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/collectives.h"

namespace advisor {

struct ClockOffset {
  double offset_ms = 0;  // the node's clock less node 0's
  double spread_ms = 0;  // median absolute deviation of the per-collective differences
  int samples = 0;       // matched collectives the estimate rests on; 0: not estimated
};

// `collectives[r]`: rank r's collectives in start order (its own clock); `node_of_rank[r]`: its
// node, 0 <= node < nodes. Returns one estimate per node; node 0's is 0 by definition. A node
// without a rank, or without a collective matched on every rank, keeps samples == 0.
std::vector<ClockOffset> EstimateClockOffsets(
    const std::vector<const std::vector<CollectiveCall>*>& collectives,
    const std::vector<int>& node_of_rank, int nodes);

// Moves every timestamp of `timeline` by `delta_ns` (negative: earlier).
void ShiftTimeline(Timeline& timeline, TimeNs delta_ns);

}  // namespace advisor
