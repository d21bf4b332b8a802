// The command-line options that override a model's workload, shared by `advisor bisect` and
// `advisor worker` so that a worker runs the workload exactly as bisect did.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "engine/workload/workload_spec.h"

namespace advisor {

struct WorkloadFlags {
  std::string device;        // "" keeps the workload's (ApplyOverrides validates it)
  long long batch_size = 0;  // 0 keeps the workload's
  bool deterministic = false;
  bool nondeterministic = false;

  void AddTo(CLI::App& command);
  WorkloadOverrides ToOverrides() const;
};

}  // namespace advisor
