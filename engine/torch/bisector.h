// `advisor bisect model.pt`: the bisection (engine/bisect) run through the TorchScript front door,
// with what only a TorchScript workload has: a step replayed as a CUDA graph is timed apart.
#pragma once

#include <string>

#include "engine/bisect/bisection.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// What only the model door takes: the archive, the workload's overrides, the graph executor's
// optimisation. The bisection's own settings are BisectSettings (engine/bisect/bisection.h).
struct ModelOptions {
  std::string model_path;
  WorkloadOverrides overrides;
  bool jit_optimize = false;
};

// Runs the whole bisection. Throws ModelError, WorkloadError or StepError (one line each) for
// input advisor cannot use.
BisectOutcome RunBisect(const ModelOptions& options, const BisectSettings& settings,
                        const Progress& progress);

}  // namespace advisor
