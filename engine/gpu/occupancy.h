// What a kernel's launch configuration lets the device do, estimated from the grid, the block,
// registers and shared memory against DeviceLimits. No hardware counter is read, so these are
// upper bounds: they assume every block runs as long as every other, and ignore warps stalled on
// memory, per-architecture allocation granularities beyond the register one, the shared memory
// the driver reserves per block, cluster launches, and kernels sharing SMs with each other.
#pragma once

#include <optional>

#include "engine/gpu/device_limits.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct LaunchEstimate {
  int blocks_per_sm = 0;  // blocks one SM can hold at once for this launch
  // Resident warps per busy SM over the SM's warp slots, averaged over the launch's waves.
  double achieved_occupancy = 0;
  // Share of SM time with at least one block resident, the partly filled last wave included.
  double sm_efficiency = 0;
};

// nullopt when the launch has no shape, the limits are incomplete, or the launch cannot fit on an
// SM at all (limits that do not match the device).
std::optional<LaunchEstimate> EstimateLaunch(const KernelEvent& kernel, const DeviceLimits& limits);

}  // namespace advisor
