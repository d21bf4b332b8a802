#include "engine/cli/workload_flags.h"

namespace advisor {

void WorkloadFlags::AddTo(CLI::App& command) {
  command.add_option("--device", device, "cpu or cuda (default: the workload's)");
  command.add_option("--batch-size", batch_size, "override the workload's batch size");
  auto* on = command.add_flag("--deterministic", deterministic, "use deterministic algorithms");
  command.add_flag("--no-deterministic", nondeterministic, "do not use deterministic algorithms")
      ->excludes(on);
  command
      .add_option("--step-timeout", step_timeout_s,
                  "seconds one training step may take before the run is abandoned (exit status "
                  "124); 0: no limit")
      ->capture_default_str()
      ->check(CLI::Range(0, 1'000'000));
}

WorkloadOverrides WorkloadFlags::ToOverrides() const {
  WorkloadOverrides overrides;
  if (!device.empty()) overrides.device = device;
  if (batch_size != 0) overrides.batch_size = batch_size;
  if (deterministic) overrides.deterministic = true;
  if (nondeterministic) overrides.deterministic = false;
  return overrides;
}

}  // namespace advisor
