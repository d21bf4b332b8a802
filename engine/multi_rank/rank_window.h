// One rank's measured steps as the multi-rank analysis compares ranks, whichever door measured
// them: a rank's torch.profiler trace (advisor analyze, RankTrace) or the windows the script
// probe recorded in each rank of a launcher's job (advisor bisect -- torchrun ..., engine/script).
// A view: the pointers name what the caller keeps alive while the analysis runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/trace_analysis/collectives.h"
#include "engine/trace_import/event_store.h"
#include "engine/window/measured_window.h"

namespace advisor {

struct RankWindow {
  int rank = 0;
  std::string source;                          // the trace file; "" where the probe measured
  std::optional<DistributedInfo> distributed;  // backend and world size, where known
  // The steps compared across ranks: their timeline (step spans, ops) and collectives.
  const MeasuredWindow* window = nullptr;
  const std::vector<CollectiveCall>* collectives = nullptr;
  bool gpu_activity = false;
  // The sections of `window` the analysis reads: step, data, ops; and modules[], the paths whose
  // costs `modules_window` attributes. A trace holds every module in its one window; a bisection
  // brackets one level per window, so there it is the deepest window it recorded.
  const RunReport* report = nullptr;
  const MeasuredWindow* modules_window = nullptr;
  // The rank's steps timed without a profiler, aligned with the other ranks' (the step clock's
  // spans and phases, no events): what checks that a straggler of the profiled steps is not the
  // measurement's own effect (unprofiled_check.h). Null where the door timed none (a trace).
  const std::vector<StepSpan>* unprofiled_steps = nullptr;
};

}  // namespace advisor
