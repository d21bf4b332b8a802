#include "engine/cli/workload_flags.h"

#include <charconv>
#include <limits>
#include <string>

namespace advisor {
namespace {

// CLI11 reads an integer beyond int64 as its largest value, silently; the text is checked first.
CLI::Validator PositiveInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        long long value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < 1) {
          return "must be an integer from 1 to " +
                 std::to_string(std::numeric_limits<long long>::max()) + ", got " + text;
        }
        return "";
      },
      "POSITIVE INTEGER");
}

}  // namespace

void WorkloadFlags::AddTo(CLI::App& command) {
  command.add_option("--device", device, "cpu or cuda (default: the workload's)");
  command.add_option("--batch-size", batch_size, "override the workload's batch size")
      ->check(PositiveInteger());
  auto* on = command.add_flag("--deterministic", deterministic, "use deterministic algorithms");
  command.add_flag("--no-deterministic", nondeterministic, "do not use deterministic algorithms")
      ->excludes(on);
  command
      .add_option("--step-timeout", step_timeout_s,
                  "seconds one training step may take before the run is abandoned (exit status "
                  "124; in script mode the wait for the script's next step, its first included: "
                  "start-up, imports, model and data set-up); 0: no limit")
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
