// What the CUDA runtime and driver calls that matter to the analysis are called, once CUPTI's
// version suffixes are gone (probes/cupti/cupti_records.h strips them; torch.profiler traces
// use the same base names).
#pragma once

#include <optional>
#include <string>

namespace advisor {

enum class HostWaitKind {
  kStreamSync,      // cudaStreamSynchronize
  kDeviceSync,      // cudaDeviceSynchronize
  kEventSync,       // cudaEventSynchronize
  kBlockingMemcpy,  // cudaMemcpy and friends: return once the copy is done
  kFree,            // cudaFree synchronises the whole device before it frees
};

// How the host waits for the device inside this call; nullopt for calls that return at once.
std::optional<HostWaitKind> HostWaitOf(const std::string& api_name);

// A call that takes memory from the driver (the caching allocator growing), not from its cache.
bool IsDeviceAllocation(const std::string& api_name);

}  // namespace advisor
