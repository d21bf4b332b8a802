#include "engine/gpu/occupancy.h"

#include <algorithm>
#include <cstdint>

namespace advisor {
namespace {

// Registers are allocated to warps in units of 256 on every architecture from Volta to Hopper.
constexpr std::int64_t kRegisterAllocationUnit = 256;

std::int64_t CeilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Blocks of this launch one SM can hold, limited by warps, threads, blocks, registers and shared
// memory, whichever binds first.
std::int64_t BlocksPerSm(const KernelEvent& kernel, const DeviceLimits& limits,
                         std::int64_t threads_per_block, std::int64_t warps_per_block) {
  std::int64_t blocks = limits.max_blocks_per_sm;
  blocks = std::min(blocks, limits.max_warps_per_sm / warps_per_block);
  blocks = std::min(blocks, limits.max_threads_per_sm / threads_per_block);
  if (kernel.registers_per_thread > 0) {
    const std::int64_t registers_per_warp =
        CeilDiv(std::int64_t{kernel.registers_per_thread} * kWarpSize, kRegisterAllocationUnit) *
        kRegisterAllocationUnit;
    blocks = std::min(blocks, limits.regs_per_sm / (registers_per_warp * warps_per_block));
  }
  const std::int64_t shared_bytes =
      std::int64_t{kernel.static_shared_bytes} + kernel.dynamic_shared_bytes;
  if (shared_bytes > 0) blocks = std::min(blocks, limits.smem_per_sm / shared_bytes);
  return blocks;
}

}  // namespace

std::optional<LaunchEstimate> EstimateLaunch(const KernelEvent& kernel,
                                             const DeviceLimits& limits) {
  if (!limits.complete()) return std::nullopt;
  const std::int64_t threads_per_block =
      std::int64_t{kernel.block[0]} * kernel.block[1] * kernel.block[2];
  const std::int64_t blocks = std::int64_t{kernel.grid[0]} * kernel.grid[1] * kernel.grid[2];
  if (threads_per_block <= 0 || blocks <= 0) return std::nullopt;
  const std::int64_t warps_per_block = CeilDiv(threads_per_block, kWarpSize);
  const std::int64_t blocks_per_sm =
      BlocksPerSm(kernel, limits, threads_per_block, warps_per_block);
  if (blocks_per_sm <= 0) return std::nullopt;

  // The grid runs in waves of sm_count * blocks_per_sm blocks; the last may be partly filled.
  const std::int64_t blocks_per_wave = blocks_per_sm * limits.sm_count;
  const std::int64_t full_waves = blocks / blocks_per_wave;
  const std::int64_t last_wave_blocks = blocks % blocks_per_wave;
  const double warp_slots = limits.max_warps_per_sm;
  const double full_occupancy = std::min(1.0, blocks_per_sm * warps_per_block / warp_slots);

  LaunchEstimate estimate;
  estimate.blocks_per_sm = static_cast<int>(blocks_per_sm);
  if (last_wave_blocks == 0) {
    estimate.achieved_occupancy = full_occupancy;
    estimate.sm_efficiency = 1.0;
    return estimate;
  }
  // The scheduler spreads a partial wave over as many SMs as it has blocks, up to all of them.
  const std::int64_t last_wave_sms = std::min<std::int64_t>(last_wave_blocks, limits.sm_count);
  const double last_occupancy = std::min(
      1.0, static_cast<double>(last_wave_blocks) / last_wave_sms * warps_per_block / warp_slots);
  const double last_efficiency = static_cast<double>(last_wave_sms) / limits.sm_count;
  const double waves = static_cast<double>(full_waves) + 1;
  estimate.achieved_occupancy = (full_waves * full_occupancy + last_occupancy) / waves;
  estimate.sm_efficiency = (full_waves + last_efficiency) / waves;
  return estimate;
}

}  // namespace advisor
