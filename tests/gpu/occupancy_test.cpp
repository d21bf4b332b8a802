#include "engine/gpu/occupancy.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

// An H100 SXM as cudaGetDeviceProperties reports it.
DeviceLimits H100() {
  DeviceLimits limits;
  limits.sm_count = 132;
  limits.max_threads_per_sm = 2048;
  limits.max_blocks_per_sm = 32;
  limits.regs_per_sm = 65536;
  limits.smem_per_sm = 233472;
  limits.max_warps_per_sm = 64;
  return limits;
}

KernelEvent Launch(int blocks, int threads, int registers, int shared_bytes = 0) {
  KernelEvent kernel;
  kernel.grid[0] = blocks;
  kernel.grid[1] = kernel.grid[2] = 1;
  kernel.block[0] = threads;
  kernel.block[1] = kernel.block[2] = 1;
  kernel.registers_per_thread = registers;
  kernel.dynamic_shared_bytes = shared_bytes;
  return kernel;
}

TEST(Occupancy, FullWavesOfAWellShapedLaunchFillTheDevice) {
  // 256 threads x 32 registers: 8 blocks per SM by warps, threads and registers alike.
  const auto estimate = EstimateLaunch(Launch(132 * 8 * 2, 256, 32), H100());
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(estimate->achieved_occupancy, 1.0);
  EXPECT_DOUBLE_EQ(estimate->sm_efficiency, 1.0);
}

TEST(Occupancy, RegistersLimitResidentBlocks) {
  // 128 registers x 32 lanes = 4096 per warp, 32768 per block: 2 blocks = 16 of 64 warps.
  const auto estimate = EstimateLaunch(Launch(132 * 2, 256, 128), H100());
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(estimate->achieved_occupancy, 0.25);
}

TEST(Occupancy, RegisterCountsRoundUpToTheAllocationUnit) {
  // 33 registers take 1056 per warp, rounded to 1280: 65536 / (1280 * 8) = 6 blocks, not 7.
  const auto estimate = EstimateLaunch(Launch(132 * 6, 256, 33), H100());
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->blocks_per_sm, 6);
}

TEST(Occupancy, SharedMemoryLimitsResidentBlocks) {
  const auto estimate = EstimateLaunch(Launch(132 * 2, 256, 32, 100 * 1024), H100());
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(estimate->achieved_occupancy, 0.25);
}

TEST(Occupancy, AGridSmallerThanTheDeviceLeavesSmsIdle) {
  // 66 blocks of 4 warps: half the SMs get one block each, the rest nothing.
  const auto estimate = EstimateLaunch(Launch(66, 128, 32), H100());
  ASSERT_TRUE(estimate);
  EXPECT_DOUBLE_EQ(estimate->sm_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(estimate->achieved_occupancy, 4.0 / 64);
}

TEST(Occupancy, APartialLastWaveCostsEfficiencyAndOccupancy) {
  // One full wave of 132 x 8 blocks, then 66 blocks on half the SMs.
  const auto estimate = EstimateLaunch(Launch(132 * 8 + 66, 256, 32), H100());
  ASSERT_TRUE(estimate);
  EXPECT_DOUBLE_EQ(estimate->sm_efficiency, (1.0 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(estimate->achieved_occupancy, (1.0 + 8.0 / 64) / 2);
}

TEST(Occupancy, NoEstimateWithoutAShapeOrLimitsOrRoom) {
  EXPECT_FALSE(EstimateLaunch(Launch(0, 256, 32), H100()));
  EXPECT_FALSE(EstimateLaunch(Launch(10, 0, 32), H100()));
  EXPECT_FALSE(EstimateLaunch(Launch(10, 256, 32), DeviceLimits{}));
  EXPECT_FALSE(EstimateLaunch(Launch(10, 256, 32, 300 * 1024), H100()))
      << "more shared memory than an SM has";
}

}  // namespace
}  // namespace advisor
