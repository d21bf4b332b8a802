// `advisor bisect`: measure the uninstrumented step, then descend the module tree one level per
// profiled window, instrumenting only the level under examination, until a leaf module or a
// level where nothing stands out; name the module instance, the phase and the op.
#pragma once

#include <string>

#include "engine/analysis/placement.h"
#include "engine/report/report.h"
#include "engine/torch/profiled_window.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

struct BisectOptions {
  std::string model_path;
  WorkloadOverrides overrides;
  int warmup_steps = 3;   // discarded: the profiling executor compiles during the first steps
  int window_steps = 5;   // per profiled window, and unprofiled timing steps of the baseline
  int max_depth = 16;
  bool jit_optimize = false;
};

struct BisectOutcome {
  BisectReport report;
  // The deepest level's window, for the trace: ops, markers and GPU activity of its steps.
  Timeline window;
  std::vector<OpPlacement> placements;
};

// Runs the whole bisection. Throws ModelError, WorkloadError or StepError (one line each) for
// input advisor cannot use.
BisectOutcome RunBisect(const BisectOptions& options, const Progress& progress);

}  // namespace advisor
