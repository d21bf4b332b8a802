#include "engine/multi_rank/unprofiled_check.h"

#include <algorithm>
#include <optional>

#include "engine/util/median.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

// The profiled steps must put at least this share of the straggler's lateness before its
// backward for the measure to see it. An excess spread evenly over the step puts about a third
// there (a backward costs about twice its forward), an excess in the forward or the data wait
// all of it; below this share the excess lies in the backward, which the steps outside the
// windows cannot show, and the straggler is not confirmed.
constexpr double kSeenShare = 0.1;
// The excess holds outside the profiled windows when, as a share of the other ranks' time before
// the backward, it is at least this share of what the profiled steps show. Shares, not
// milliseconds: the probe slows every rank's work in its windows, a real excess with it. A real
// excess is in both, at as large a share or larger outside (the probe slows many small ops more
// than a few large ones: tests/script/ddp_train.py --slow-rank 1 on the CI machine, 16.5 ms more
// before the backward in the profiled steps, 28.9 ms outside them); the probe's own cost on one
// rank is in the profiled steps only (nothing outside but noise): half separates the two.
constexpr double kHoldsShare = 0.5;

// The step until its backward begins: its data wait and forward, all their stretches.
double PreBackwardMs(const StepSpan& step) {
  return (step.TimeIn(Phase::kData) + step.TimeIn(Phase::kForward)) * 1e-6;
}

struct PreBackwardExcess {
  double ms = 0;         // the straggler's beyond the other ranks' median: per step, the median
  double others_ms = 0;  // the other ranks' median: per step, the median
  double Share() const { return others_ms > 0 ? ms / others_ms : 0.0; }
};

// Paired step by step (the ranks measured the same steps, in lockstep), so that what slows every
// rank in one step cancels out.
std::optional<PreBackwardExcess> ExcessOf(const std::vector<const std::vector<StepSpan>*>& steps,
                                          std::size_t straggler) {
  std::size_t count = steps[straggler]->size();
  for (const std::vector<StepSpan>* rank : steps) count = std::min(count, rank->size());
  if (count == 0) return std::nullopt;
  std::vector<double> excess, others_median;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<double> others;
    for (std::size_t r = 0; r < steps.size(); ++r) {
      if (r != straggler) others.push_back(PreBackwardMs((*steps[r])[i]));
    }
    const double median = Median(others);
    excess.push_back(PreBackwardMs((*steps[straggler])[i]) - median);
    others_median.push_back(median);
  }
  return PreBackwardExcess{Median(excess), Median(others_median)};
}

bool Seen(const Straggler& straggler) {
  return straggler.pre_backward_excess_ms.value_or(0) >= kSeenShare * straggler.late_ms;
}

}  // namespace

void CheckUnprofiled(const std::vector<RankWindow>& ranks, std::size_t straggler,
                     Straggler& result) {
  std::vector<const std::vector<StepSpan>*> profiled, unprofiled;
  for (const RankWindow& rank : ranks) {
    if (rank.unprofiled_steps == nullptr) return;
    profiled.push_back(&rank.window->timeline.steps);
    unprofiled.push_back(rank.unprofiled_steps);
  }
  const std::optional<PreBackwardExcess> inside = ExcessOf(profiled, straggler);
  const std::optional<PreBackwardExcess> outside = ExcessOf(unprofiled, straggler);
  if (!inside || !outside) return;
  result.pre_backward_excess_ms = inside->ms;
  result.unprofiled_excess_ms = outside->ms;
  result.holds_unprofiled = Seen(result) && outside->Share() >= kHoldsShare * inside->Share();
}

std::string UnconfirmedStragglerNote(const DistributedSummary& distributed) {
  if (!distributed.straggler || distributed.straggler->holds_unprofiled.value_or(true)) return "";
  const Straggler& s = *distributed.straggler;
  const double outside_ms = s.unprofiled_excess_ms.value_or(0);
  const std::string late =
      Printf("rank %d was %.1f ms per step late to the collectives in the profiled steps", s.rank,
             s.late_ms);
  if (!Seen(s)) {
    return late + Printf(", but its data wait and forward took no longer than the other ranks' "
                         "(%+.1f ms): its excess lies in the backward, which the steps timed "
                         "without a profiler cannot show (the other ranks' backward ends waiting "
                         "for it); not confirmed, no straggler finding",
                         s.pre_backward_excess_ms.value_or(0));
  }
  const std::string excess =
      s.compute_excess_ms > 0
          ? Printf("rank %d computed %.1f ms more per step than the other ranks in the profiled "
                   "steps (%.1f ms more before its backward)",
                   s.rank, s.compute_excess_ms, *s.pre_backward_excess_ms)
          : late + Printf(" (its data wait and forward %.1f ms longer than the other ranks')",
                          *s.pre_backward_excess_ms);
  return excess + Printf(" but not in the steps timed without a profiler (%+.1f ms before its "
                         "backward): taken for the measurement's own effect, no straggler finding",
                         outside_ms);
}

}  // namespace advisor
