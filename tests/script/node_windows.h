// Synthetic windows of one rank of a job on several nodes, for the node summary's tests: steps of
// 10 ms of true time, each with `work_ms` of the rank's own work (in module "slow" where
// `markers`) and then a gloo all-reduce until the step's end (every rank's ends together), all
// seen on a node clock `clock_ns` ahead of the true one.
#pragma once

#include "engine/timeline/timeline.h"

namespace advisor::testing {

inline constexpr TimeNs kMs = 1'000'000;

inline Timeline NodeRankWindow(int first, int steps, TimeNs work_ms, bool markers,
                               TimeNs clock_ns) {
  Timeline timeline;
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = clock_ns + 10 * i * kMs;
    timeline.steps.push_back(StepOfPhases(first + i, start, start, start + 10 * kMs,
                                          start + 10 * kMs, start + 10 * kMs));
    OpEvent work;
    work.name = "aten::mm";
    work.scope = OpScope::kForward;
    work.thread = 1;
    work.start_ns = start;
    work.end_ns = start + work_ms * kMs;
    if (markers) timeline.markers.push_back({"slow", MarkerKind::kForwardEnter, 1, work.start_ns});
    timeline.ops.push_back(work);
    if (markers) timeline.markers.push_back({"slow", MarkerKind::kForwardExit, 1, work.end_ns});
    if (markers) continue;  // the summary keeps an instrumented window without its collectives
    OpEvent all_reduce = work;
    all_reduce.name = "gloo:all_reduce";
    all_reduce.thread = 2;
    all_reduce.start_ns = work.end_ns;
    all_reduce.end_ns = start + 10 * kMs;
    timeline.ops.push_back(all_reduce);
  }
  return timeline;
}

}  // namespace advisor::testing
