#include "engine/multi_rank/unprofiled_check.h"

#include <algorithm>
#include <cmath>
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
// The excess holds outside the profiled windows when, as a share of the straggler's step, it is
// at least this share of what the profiled steps show. Shares, not milliseconds: the probe slows
// every rank's steps in its windows, a real excess with them. Of the step, not of the other
// ranks' time before the backward, which can be a millisecond or two that the host's load swings
// by as much (tests/script_runs/ddp_train.py --slow-rank 1 on the loaded CI machine: rank 0's
// data wait and forward 2.9 ms in one run's median profiled step, 6.9 in its median step outside
// them). A real excess keeps about its share of the step (that run's planted one: 38.0 ms of a
// 54.0 ms profiled step, 17.2 of 32.0 outside, about 0.77 of the share; another run 16.5 of 37.6
// against 28.9 of 57.4, about 1.15); the probe's own cost on one rank is in the profiled steps
// only (nothing outside but noise): half separates the two.
constexpr double kHoldsShare = 0.5;
// And it is at least this share of the straggler's step outside the windows: what a balanced
// job's ranks differ by there is less. On two H200s (bench/straggler_check.py, 2026-11-28) a
// balanced job's later rank spent 0.4-0.5 ms more before its backward in 7.7 ms steps (5.7 % and
// 6.6 %), while it was 2.4 and 4.2 ms late in the profiled steps, the probe's uneven cost; the
// planted stragglers' shares were 0.70-0.85 there, 0.44 and 0.54 on the loaded CI machine.
constexpr double kMinOutsideShare = 0.1;

// The step until its backward begins: its data wait, forward and (a script's) loss, all their
// stretches.
double PreBackwardMs(const StepSpan& step) {
  return (step.TimeIn(Phase::kData) + step.TimeIn(Phase::kForward) + step.TimeIn(Phase::kLoss)) *
         1e-6;
}

struct PreBackwardExcess {
  double ms = 0;       // the straggler's beyond the other ranks' median: per step, the median
  double step_ms = 0;  // the straggler's median step
  double Share() const { return step_ms > 0 ? ms / step_ms : 0.0; }
};

// Paired step by step (the ranks measured the same steps, in lockstep), so that what slows every
// rank in one step cancels out.
std::optional<PreBackwardExcess> ExcessOf(const std::vector<const std::vector<StepSpan>*>& steps,
                                          std::size_t straggler) {
  std::size_t count = steps[straggler]->size();
  for (const std::vector<StepSpan>* rank : steps) count = std::min(count, rank->size());
  if (count == 0) return std::nullopt;
  std::vector<double> excess, step_ms;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<double> others;
    for (std::size_t r = 0; r < steps.size(); ++r) {
      if (r != straggler) others.push_back(PreBackwardMs((*steps[r])[i]));
    }
    const StepSpan& step = (*steps[straggler])[i];
    excess.push_back(PreBackwardMs(step) - Median(others));
    step_ms.push_back((step.end_ns - step.start_ns) * 1e-6);
  }
  return PreBackwardExcess{Median(excess), Median(step_ms)};
}

// "+0.3 ms", and "+0.0 ms" for what rounds to nothing (never "-0.0 ms").
std::string SignedMs(double ms) { return Printf("%+.1f ms", std::round(ms * 10) / 10 + 0.0); }

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
  result.holds_unprofiled = Seen(result) && outside->Share() >= kHoldsShare * inside->Share() &&
                            outside->Share() >= kMinOutsideShare;
}

std::string UnconfirmedStragglerNote(const DistributedSummary& distributed) {
  if (!distributed.straggler || distributed.straggler->holds_unprofiled.value_or(true)) return "";
  const Straggler& s = *distributed.straggler;
  const std::string late =
      Printf("rank %d was %.1f ms per step late to the collectives in the profiled steps", s.rank,
             s.late_ms);
  if (!Seen(s)) {
    return late + ", but its data wait and forward hold little of it (" +
           SignedMs(s.pre_backward_excess_ms.value_or(0)) +
           " beyond the other ranks'): its excess lies in the backward, which the steps timed "
           "without a profiler cannot show (the other ranks' backward ends waiting for it); not "
           "confirmed, no straggler finding";
  }
  const std::string excess =
      s.compute_excess_ms > 0
          ? Printf("rank %d computed %.1f ms more per step than the other ranks in the profiled "
                   "steps (%.1f ms more before its backward)",
                   s.rank, s.compute_excess_ms, *s.pre_backward_excess_ms)
          : late + Printf(" (its data wait and forward %.1f ms longer than the other ranks')",
                          *s.pre_backward_excess_ms);
  return excess + " but not in the steps timed without a profiler (" +
         SignedMs(s.unprofiled_excess_ms.value_or(0)) +
         " before its backward): taken for the measurement's own effect, no straggler finding";
}

}  // namespace advisor
