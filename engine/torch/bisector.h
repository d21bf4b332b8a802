// `advisor bisect model.pt`: the bisection (engine/bisect) run through the TorchScript front door,
// with what only a TorchScript workload has: a step replayed as a CUDA graph is timed apart.
#pragma once

#include <string>

#include "engine/bisect/bisection.h"
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

// Runs the whole bisection. Throws ModelError, WorkloadError or StepError (one line each) for
// input advisor cannot use.
BisectOutcome RunBisect(const BisectOptions& options, const Progress& progress);

}  // namespace advisor
