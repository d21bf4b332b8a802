// Which rank the others wait for. Every rank leaves a collective at about the same moment, so a
// rank that reached it earlier spends longer inside it: a rank's lateness at one collective is
// the longest time any rank spent in it less its own. This needs no common clock across ranks
// (hosts' clocks differ), only each rank's own durations.
#pragma once

#include <optional>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/multi_rank/collective_matching.h"
#include "engine/multi_rank/rank_window.h"

namespace advisor {

struct Lateness {
  std::vector<double> late_ms;   // per rank, per step
  std::vector<std::vector<double>> late_ms_by_step;  // per rank, its lateness in each step
  std::vector<int> last_arrivals;
  std::vector<double> wait_ms;   // per rank, per step: in collectives, waiting for the last rank
  int matched = 0;               // complete matches inside the ranks' steps
  int unmatched = 0;
  double skew_median_ms = 0;
  double skew_max_ms = 0;
};

Lateness LatenessOf(const std::vector<RankWindow>& ranks,
                    const std::vector<MatchedCollective>& matches);

// How late `rank` surely is, per step: in each step its lateness less the median of the other
// ranks', and of those the mean less StudentT95 standard errors (the lower end of a 95 %
// interval). Ranks that share a busy host take turns being late: the mean alone is the larger of
// two noises, while a planted delay makes the same rank late by about as much every step. With
// fewer than three steps there is no spread to weigh: the mean.
double SureLateMs(const std::vector<std::vector<double>>& late_ms_by_step, std::size_t rank);

// The straggler: the latest rank, when it reached at least half of the matched collectives last
// and its lateness, weighed against its spread over the steps (SureLateMs), is a measurable part
// of its step; with the module and op whose cost on it exceeds the other ranks' median the most,
// and whether its excess holds in the steps timed without a profiler (CheckUnprofiled).
// `summaries` are the ranks' RankSummary, by rank.
std::optional<Straggler> FindStraggler(const std::vector<RankWindow>& ranks,
                                       const std::vector<RankSummary>& summaries,
                                       const Lateness& lateness);

}  // namespace advisor
