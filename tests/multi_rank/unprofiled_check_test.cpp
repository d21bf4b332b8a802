// Whether a straggler of the profiled steps holds in the steps timed without a profiler, on the
// shapes two H200s measured (bench/straggler_check.py, 2026-11-28): a balanced job whose later
// rank the probe slowed in its windows, and a rank slowed on its GPU.
#include "engine/multi_rank/unprofiled_check.h"

#include <gtest/gtest.h>

#include <array>

namespace advisor {
namespace {

constexpr TimeNs Ns(double ms) { return static_cast<TimeNs>(ms * 1e6); }

// Five steps of `step_ms`, their data wait and forward together `pre_backward_ms`.
Timeline Steps(double step_ms, double pre_backward_ms) {
  Timeline timeline;
  for (int i = 0; i < 5; ++i) {
    const double t = i * step_ms;
    timeline.steps.push_back(StepOfPhases(i, Ns(t), Ns(t + 0.1 * pre_backward_ms),
                                          Ns(t + pre_backward_ms), Ns(t + 0.9 * step_ms),
                                          Ns(t + step_ms)));
  }
  return timeline;
}

struct RankSteps {
  double profiled_step_ms, profiled_pre_backward_ms;
  double unprofiled_step_ms, unprofiled_pre_backward_ms;
};

Straggler Check(const std::array<RankSteps, 2>& ranks, double late_ms) {
  std::array<MeasuredWindow, 2> profiled;
  std::array<std::vector<StepSpan>, 2> unprofiled;
  std::vector<RankWindow> windows;
  for (std::size_t r = 0; r < 2; ++r) {
    profiled[r] =
        MeasureWindow(Steps(ranks[r].profiled_step_ms, ranks[r].profiled_pre_backward_ms));
    unprofiled[r] = Steps(ranks[r].unprofiled_step_ms, ranks[r].unprofiled_pre_backward_ms).steps;
    RankWindow window;
    window.rank = static_cast<int>(r);
    window.window = &profiled[r];
    window.unprofiled_steps = &unprofiled[r];
    windows.push_back(window);
  }
  Straggler straggler;
  straggler.rank = 1;
  straggler.late_ms = late_ms;
  CheckUnprofiled(windows, 1, straggler);
  return straggler;
}

TEST(UnprofiledCheck, ABalancedJobsRankTheProbeSlowedIsNotBorneOut) {
  // Rank 1 was 2.4 ms late in the profiled steps, 0.9 ms of it before its backward; outside
  // them it spent 0.5 ms more there in 7.7 ms steps: as much as a balanced job's ranks differ.
  const Straggler straggler = Check({RankSteps{10.8, 2.6, 7.66, 2.32}, {10.8, 3.47, 7.69, 2.83}},
                                    /*late_ms=*/2.36);
  EXPECT_NEAR(straggler.unprofiled_excess_ms.value_or(0), 0.51, 1e-6);
  ASSERT_TRUE(straggler.holds_unprofiled.has_value());
  EXPECT_FALSE(*straggler.holds_unprofiled);
}

TEST(UnprofiledCheck, ARankSlowedOnItsGpuIsBorneOut) {
  const Straggler straggler = Check({RankSteps{50.0, 2.5, 50.0, 2.8}, {50.0, 43.9, 50.0, 45.4}},
                                    /*late_ms=*/41.6);
  EXPECT_NEAR(straggler.pre_backward_excess_ms.value_or(0), 41.4, 1e-6);
  ASSERT_TRUE(straggler.holds_unprofiled.has_value());
  EXPECT_TRUE(*straggler.holds_unprofiled);
}

}  // namespace
}  // namespace advisor
