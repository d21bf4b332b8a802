// The ranks of a launcher's job (advisor bisect -- torchrun ...), measured window by window: every
// rank measures the same steps (the controller names them by index), the bisection decides each
// window on the slowest rank's (the one whose own work, its steps less its waits in collectives,
// took longest: the others wait for it), and what the per-rank summary needs of every rank is
// kept: the steps timed without a profiler, the baseline (the first uninstrumented window), and
// the deepest instrumented window, whose module costs name the straggler's module. Torch-free.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"
#include "engine/window/window_source.h"

namespace advisor {

class RankWindows {
 public:
  // `ranks`: each rank's number, in the order its replies are given. `world_size`: the job's
  // ranks on every node (0: these); the windows the summary needs are kept wherever it has
  // several, even on a node that runs one of them (its node file carries them to the merge).
  explicit RankWindows(std::vector<int> ranks, int world_size = 0)
      : ranks_(std::move(ranks)), keeps_(ranks_.size() > 1 || world_size > 1) {}

  // The windows one or several nodes kept (Baselines, Deepest), given back together by the
  // controller that merges every node's summary (engine/script/node_merge): `ranks`, and each
  // rank's windows in that order. The baselines must share their step indices.
  static RankWindows FromKept(std::vector<int> ranks, std::vector<Timeline> baselines,
                              std::vector<Timeline> deepest,
                              std::vector<std::vector<StepSpan>> timed);

  // Each rank's steps timed without a profiler: kept for the summary (they tell a straggler from
  // the profiler's own effect) and returned as, per step, the span of the rank whose step took
  // longest: the step every rank waits for. Throws std::runtime_error (one line) when the ranks
  // measured different steps.
  std::vector<StepSpan> TimedSteps(std::vector<std::vector<StepSpan>> spans);

  // Each rank's window of one request: keeps what the summary needs and returns the slowest
  // rank's window, without its collectives (waits for the others, not the rank's work). An
  // instrumented window becomes the ranks' deepest unless it does not follow the levels
  // (WindowRequest::follows_the_levels). Throws std::runtime_error as TimedSteps.
  RecordedWindow Decide(Instrumentation instrumentation, std::vector<RecordedWindow> windows,
                        bool follows_the_levels = true);

  // What the summary is made of, by the order of the ranks: each rank's first uninstrumented
  // window (with its collectives) and its latest instrumented one (without); empty until recorded.
  const std::vector<int>& Ranks() const { return ranks_; }
  const std::vector<Timeline>& Baselines() const { return baseline_; }
  const std::vector<Timeline>& Deepest() const { return deepest_; }
  const std::vector<std::vector<StepSpan>>& Timed() const { return timed_; }

  // Which rank the windows were decided on, for the report's data quality; "" with one rank.
  std::string DecisionsNote() const;

  // Each rank's step beside the others', the collectives' skew and the straggler, from the kept
  // windows; nullopt with one rank or before a baseline was recorded.
  std::optional<DistributedSummary> Summarise() const;

 private:
  // Throws when the ranks' spans differ in their step indices.
  void CheckAligned(const std::vector<const std::vector<StepSpan>*>& spans) const;

  std::vector<int> ranks_;
  std::vector<std::vector<StepSpan>> timed_;  // every timing window's steps, by the order of ranks_
  bool keeps_ = false;              // the summary's windows are kept (several ranks in the job)
  std::vector<Timeline> baseline_;  // by the order of ranks_
  std::vector<Timeline> deepest_;   // the latest instrumented window, likewise
  std::vector<int> decided_on_;     // per recorded window, the rank it was decided on
};

}  // namespace advisor
