#include "engine/gpu/cuda_api_names.h"

#include <unordered_map>

namespace advisor {

std::optional<HostWaitKind> HostWaitOf(const std::string& api_name) {
  // Driver calls are listed too: cuBLAS, NCCL and Triton call the driver directly.
  static const std::unordered_map<std::string, HostWaitKind> kWaits = {
      {"cudaStreamSynchronize", HostWaitKind::kStreamSync},
      {"cuStreamSynchronize", HostWaitKind::kStreamSync},
      {"cudaDeviceSynchronize", HostWaitKind::kDeviceSync},
      {"cudaThreadSynchronize", HostWaitKind::kDeviceSync},
      {"cuCtxSynchronize", HostWaitKind::kDeviceSync},
      {"cudaEventSynchronize", HostWaitKind::kEventSync},
      {"cuEventSynchronize", HostWaitKind::kEventSync},
      {"cudaMemcpy", HostWaitKind::kBlockingMemcpy},
      {"cudaMemcpy2D", HostWaitKind::kBlockingMemcpy},
      {"cudaMemcpy3D", HostWaitKind::kBlockingMemcpy},
      {"cudaMemcpyPeer", HostWaitKind::kBlockingMemcpy},
      {"cudaMemcpyToSymbol", HostWaitKind::kBlockingMemcpy},
      {"cudaMemcpyFromSymbol", HostWaitKind::kBlockingMemcpy},
      {"cuMemcpy", HostWaitKind::kBlockingMemcpy},
      {"cuMemcpyHtoD", HostWaitKind::kBlockingMemcpy},
      {"cuMemcpyDtoH", HostWaitKind::kBlockingMemcpy},
      {"cuMemcpyDtoD", HostWaitKind::kBlockingMemcpy},
      {"cuMemcpy2D", HostWaitKind::kBlockingMemcpy},
      {"cuMemcpy3D", HostWaitKind::kBlockingMemcpy},
      {"cuMemcpyPeer", HostWaitKind::kBlockingMemcpy},
      {"cudaFree", HostWaitKind::kFree},
      {"cuMemFree", HostWaitKind::kFree},
  };
  auto it = kWaits.find(api_name);
  if (it == kWaits.end()) return std::nullopt;
  return it->second;
}

bool IsDeviceAllocation(const std::string& api_name) {
  // cudaMalloc calls cuMemAlloc inside it, so only the runtime name counts for that path;
  // cuMemCreate is the caching allocator's own path with expandable segments.
  return api_name == "cudaMalloc" || api_name == "cuMemCreate";
}

}  // namespace advisor
