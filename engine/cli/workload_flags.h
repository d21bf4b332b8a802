// The command-line options that override a model's workload, shared by `advisor bisect` and
// `advisor candidate` so that a candidate runs the workload exactly as bisect did, and the step
// timeout that both honour.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "engine/util/watchdog.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// For the help of every command that runs a model (docs/security.md).
inline constexpr char kModelIsCode[] =
    "A model file is code: its TorchScript runs with your rights, and it can read, write and "
    "delete files (torch.from_file, say) like any script. Give advisor only models you would run "
    "yourself; the sandbox is for rule files, not for models.";

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
