// workload.json as found in a model archive: any bytes parse into a WorkloadSpec or fail with a
// WorkloadError; the overrides a command line adds are applied to what parses.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/workload/workload_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    advisor::WorkloadSpec spec = advisor::ParseWorkload(text, "fuzz.pt:advisor/workload.json");
    advisor::WorkloadOverrides overrides;
    overrides.batch_size = static_cast<std::int64_t>(size) + 1;
    overrides.device = "cuda";
    advisor::ApplyOverrides(spec, overrides);
  } catch (const advisor::WorkloadError&) {
  }
  return 0;
}
