// What one SM of the device can hold, for the occupancy estimate. The runner fills it from
// cudaGetDeviceProperties; nothing here reads the device.
#pragma once

#include <cstdint>

namespace advisor {

inline constexpr int kWarpSize = 32;  // every NVIDIA GPU so far

struct DeviceLimits {
  int sm_count = 0;              // cudaDeviceProp::multiProcessorCount
  int max_threads_per_sm = 0;    // maxThreadsPerMultiProcessor
  int max_blocks_per_sm = 0;     // maxBlocksPerMultiProcessor
  int regs_per_sm = 0;           // regsPerMultiprocessor
  std::int64_t smem_per_sm = 0;  // sharedMemPerMultiprocessor, bytes
  int max_warps_per_sm = 0;      // maxThreadsPerMultiProcessor / warpSize

  bool complete() const {
    return sm_count > 0 && max_threads_per_sm > 0 && max_blocks_per_sm > 0 && regs_per_sm > 0 &&
           smem_per_sm > 0 && max_warps_per_sm > 0;
  }
};

}  // namespace advisor
