// Several ranks' traces side by side (advisor analyze on a folder of rank traces): each rank's
// step and its split between compute and communication, the collectives matched across ranks,
// their skew, and the straggler with the module and op that made it late.
#pragma once

#include <vector>

#include "engine/multi_rank/rank_trace.h"
#include "engine/report/report.h"

namespace advisor {

// `ranks` sorted by rank (SortByRank).
DistributedSummary SummariseRanks(const std::vector<RankTrace>& ranks);

}  // namespace advisor
