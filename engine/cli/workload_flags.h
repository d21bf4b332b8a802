// The command-line options that override a model's workload, shared by `advisor bisect` and
// `advisor worker` so that a worker runs the workload exactly as bisect did, and the step
// timeout that both honour.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "engine/util/watchdog.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

struct WorkloadFlags {
  std::string device;        // "" keeps the workload's (ApplyOverrides validates it)
  long long batch_size = 0;  // 0 keeps the workload's
  bool deterministic = false;
  bool nondeterministic = false;
  int step_timeout_s = kDefaultStepTimeoutSeconds;  // engine/util/watchdog.h; 0: none

  void AddTo(CLI::App& command);
  WorkloadOverrides ToOverrides() const;
};

}  // namespace advisor
