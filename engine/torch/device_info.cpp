#include "engine/torch/device_info.h"

#include <torch/version.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#ifdef ADVISOR_HAVE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>

#include <utility>
#endif

namespace advisor {

#ifdef ADVISOR_HAVE_CUDA
namespace {

// Named by what returns it: the type moved namespaces in PyTorch 2.x.
using DeviceStats = decltype(c10::cuda::CUDACachingAllocator::getDeviceStats(0));

// StatType::AGGREGATE is 0 on every version; the enum moved namespaces in PyTorch 2.x.
constexpr std::size_t kAggregate = 0;
constexpr double kMb = 1024.0 * 1024.0;

// The current device's index and its caching allocator's statistics; none without a device.
std::optional<std::pair<int, DeviceStats>> CurrentDeviceStats() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return std::nullopt;
  return std::make_pair(device, c10::cuda::CUDACachingAllocator::getDeviceStats(
                                    static_cast<c10::DeviceIndex>(device)));
}

}  // namespace
#endif

std::string TorchVersion() { return TORCH_VERSION; }

std::string CudaDeviceName() {
#ifdef ADVISOR_HAVE_CUDA
  cudaDeviceProp properties{};
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
    return properties.name;
  }
#endif
  return "unknown GPU";
}

std::string CudaUnavailableReason() {
#ifdef ADVISOR_HAVE_CUDA
  return "no CUDA device is visible to LibTorch";
#else
  return "this advisor was built against LibTorch " + TorchVersion() +
         " without CUDA; build it against a CUDA LibTorch (scripts/gpu-check.sh)";
#endif
}

std::optional<DeviceLimits> CudaDeviceLimits() {
#ifdef ADVISOR_HAVE_CUDA
  cudaDeviceProp properties{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    return std::nullopt;
  }
  DeviceLimits limits;
  limits.sm_count = properties.multiProcessorCount;
  limits.max_threads_per_sm = properties.maxThreadsPerMultiProcessor;
  limits.max_blocks_per_sm = properties.maxBlocksPerMultiProcessor;
  limits.regs_per_sm = properties.regsPerMultiprocessor;
  limits.smem_per_sm = static_cast<std::int64_t>(properties.sharedMemPerMultiprocessor);
  limits.max_warps_per_sm = properties.maxThreadsPerMultiProcessor / properties.warpSize;
  return limits;
#else
  return std::nullopt;
#endif
}

void ResetCudaMemoryPeaks() {
#ifdef ADVISOR_HAVE_CUDA
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
  }
#endif
}

std::optional<MemoryStats> ReadCudaMemoryStats() {
#ifdef ADVISOR_HAVE_CUDA
  const std::optional<std::pair<int, DeviceStats>> current = CurrentDeviceStats();
  if (!current) return std::nullopt;
  const DeviceStats& stats = current->second;
  MemoryStats memory;
  memory.peak_allocated_mb = stats.allocated_bytes[kAggregate].peak / kMb;
  memory.peak_reserved_mb = stats.reserved_bytes[kAggregate].peak / kMb;
  memory.alloc_retries = stats.num_alloc_retries;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
    memory.device_total_mb = total_bytes / kMb;
  }
  return memory;
#else
  return std::nullopt;
#endif
}

std::optional<MemoryAtStart> ReadCudaMemoryAtStart() {
#ifdef ADVISOR_HAVE_CUDA
  const std::optional<std::pair<int, DeviceStats>> current = CurrentDeviceStats();
  if (!current) return std::nullopt;
  return MemoryAtStart{
      static_cast<std::int32_t>(current->first),
      static_cast<std::int64_t>(current->second.allocated_bytes[kAggregate].current)};
#else
  return std::nullopt;
#endif
}

std::optional<AllocatorAtFailure> ReadCudaAllocatorAtFailure() {
#ifdef ADVISOR_HAVE_CUDA
  const std::optional<std::pair<int, DeviceStats>> current = CurrentDeviceStats();
  if (!current) return std::nullopt;
  const DeviceStats& stats = current->second;
  AllocatorAtFailure allocator;
  allocator.allocated_mb = stats.allocated_bytes[kAggregate].current / kMb;
  allocator.reserved_mb = stats.reserved_bytes[kAggregate].current / kMb;
  allocator.peak_allocated_mb = stats.allocated_bytes[kAggregate].peak / kMb;
  allocator.alloc_retries = stats.num_alloc_retries;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
    allocator.device_free_mb = free_bytes / kMb;
    allocator.device_total_mb = total_bytes / kMb;
  }
  const char* conf = std::getenv("PYTORCH_CUDA_ALLOC_CONF");
  allocator.expandable_segments =
      conf != nullptr && std::string(conf).find("expandable_segments:True") != std::string::npos;
  return allocator;
#else
  return std::nullopt;
#endif
}

}  // namespace advisor
