#include "engine/multi_rank/distributed_summary.h"

#include "engine/analysis/step_phases.h"
#include "engine/multi_rank/collective_matching.h"
#include "engine/multi_rank/rank_timing.h"
#include "engine/multi_rank/straggler.h"

namespace advisor {
namespace {

// The rank's median step outside the profiled windows and its phases, one real step's.
UnprofiledSteps UnprofiledStepsOf(const std::vector<StepSpan>& steps) {
  const StepPhases phases = PhasesOfMedianStep(steps);
  return {static_cast<int>(steps.size()), phases.step_ms,     phases.data_ms,
          phases.forward_ms,              phases.backward_ms, phases.optimizer_ms};
}

RankSummary SummaryOf(const RankWindow& rank) {
  RankSummary summary;
  summary.rank = rank.rank;
  summary.trace = rank.source;
  const StepBreakdown& step = rank.report->step;
  summary.step_ms = step.median_ms;
  summary.forward_ms = step.forward_ms;
  summary.backward_ms = step.backward_ms;
  summary.optimizer_ms = step.optimizer_ms;
  if (rank.report->data) summary.data_wait_ms = rank.report->data->wait_ms;
  const RankTiming timing = TimingOf(rank);
  summary.compute_ms = timing.compute_ms;
  summary.comm_ms = timing.comm_ms;
  summary.exposed_comm_ms = timing.exposed_comm_ms;
  if (rank.unprofiled_steps != nullptr && !rank.unprofiled_steps->empty()) {
    summary.unprofiled = UnprofiledStepsOf(*rank.unprofiled_steps);
  }
  return summary;
}

}  // namespace

DistributedSummary SummariseRanks(const std::vector<RankWindow>& ranks) {
  DistributedSummary summary;
  summary.world_size = static_cast<int>(ranks.size());
  for (const RankWindow& rank : ranks) {
    if (!rank.distributed) continue;
    if (rank.distributed->world_size > 0) summary.world_size = rank.distributed->world_size;
    summary.backend = rank.distributed->backend;
  }
  std::vector<const std::vector<CollectiveCall>*> calls;
  for (const RankWindow& rank : ranks) {
    summary.ranks.push_back(SummaryOf(rank));
    calls.push_back(rank.collectives);
  }
  const Lateness lateness = LatenessOf(ranks, MatchCollectives(calls));
  summary.collectives_matched = lateness.matched;
  summary.collectives_unmatched = lateness.unmatched;
  summary.skew_median_ms = lateness.skew_median_ms;
  summary.skew_max_ms = lateness.skew_max_ms;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    summary.ranks[r].late_ms = lateness.late_ms[r];
    summary.ranks[r].last_arrivals = lateness.last_arrivals[r];
    summary.ranks[r].wait_ms = lateness.wait_ms[r];
  }
  summary.straggler = FindStraggler(ranks, summary.ranks, lateness);
  return summary;
}

DistributedSummary SummariseRanks(const std::vector<RankTrace>& ranks) {
  std::vector<RankWindow> windows;
  for (const RankTrace& rank : ranks) windows.push_back(WindowOf(rank));
  return SummariseRanks(windows);
}

}  // namespace advisor
