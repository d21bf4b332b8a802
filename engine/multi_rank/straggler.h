// Which rank the others wait for. Every rank leaves a collective at about the same moment, so a
// rank that reached it earlier spends longer inside it: a rank's lateness at one collective is
// the longest time any rank spent in it less its own. This needs no common clock across ranks
// (hosts' clocks differ), only each rank's own durations.
#pragma once

#include <optional>
#include <vector>

#include "engine/multi_rank/collective_matching.h"
#include "engine/multi_rank/rank_window.h"
#include "engine/report/report.h"

namespace advisor {

struct Lateness {
  std::vector<double> late_ms;   // per rank, per step
  std::vector<int> last_arrivals;
  int matched = 0;               // complete matches inside the ranks' steps
  int unmatched = 0;
  double skew_median_ms = 0;
  double skew_max_ms = 0;
};

Lateness LatenessOf(const std::vector<RankWindow>& ranks,
                    const std::vector<MatchedCollective>& matches);

// The straggler: the latest rank, when it reached at least half of the matched collectives last
// and its lateness is a measurable part of its step; with the module and op whose cost on it
// exceeds the other ranks' median the most. `summaries` are the ranks' RankSummary, by rank.
std::optional<Straggler> FindStraggler(const std::vector<RankWindow>& ranks,
                                       const std::vector<RankSummary>& summaries,
                                       const Lateness& lateness);

}  // namespace advisor
