// Several ranks side by side: each rank's step and its split between compute and communication,
// the collectives matched across ranks, their skew, and the straggler with the module and op that
// made it late. From a folder of rank traces (advisor analyze) or from the windows the probe
// recorded in each rank of a launcher's job (advisor bisect -- torchrun ...).
#pragma once

#include <vector>

#include "engine/model/run_report.h"
#include "engine/multi_rank/rank_trace.h"
#include "engine/multi_rank/rank_window.h"

namespace advisor {

// `ranks` sorted by rank.
DistributedSummary SummariseRanks(const std::vector<RankWindow>& ranks);
// `ranks` sorted by rank (SortByRank).
DistributedSummary SummariseRanks(const std::vector<RankTrace>& ranks);

}  // namespace advisor
