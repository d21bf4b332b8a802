#include "engine/gpu/gpu_summary.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor {
namespace {

using namespace testing;

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

KernelEvent Shaped(TimeNs start, TimeNs end, int blocks) {
  KernelEvent kernel = Kernel(start, end, 1);
  kernel.grid[0] = blocks;
  kernel.block[0] = 256;
  kernel.registers_per_thread = 32;
  return kernel;
}

TEST(GpuSummary, BusyFractionIsTheUnionOfDeviceWorkOverTheStep) {
  Timeline timeline;
  timeline.steps = {Step(0, 0, 1'000'000)};
  // Two streams overlap on [100us, 150us]; a copy and a memset add 100us.
  timeline.kernels = {Kernel(100'000, 200'000, 1, 7), Kernel(150'000, 300'000, 1, 8)};
  timeline.memcpys = {Memcpy(MemcpyKind::kHostToDevice, 500'000, 550'000, 1)};
  timeline.memsets = {Memset(900'000, 950'000, 1)};
  const GpuSummary step = SummariseGpuSteps(timeline, std::nullopt).at(0);
  EXPECT_DOUBLE_EQ(step.busy_fraction, 0.3);
  EXPECT_DOUBLE_EQ(step.largest_idle_gap_ms, 0.35);  // 550us..900us
  EXPECT_DOUBLE_EQ(step.kernel_ms, 0.25);
  EXPECT_DOUBLE_EQ(step.memcpy_ms, 0.05);
}

// Each step finds its work by start time: a long kernel begun steps earlier, and work out of time
// order in the timeline, still count where they overlap.
TEST(GpuSummary, WorkBegunStepsEarlierOrListedOutOfOrderStillCountsWhereItOverlaps) {
  Timeline timeline;
  timeline.steps = {Step(0, 0, 1'000'000), Step(1, 1'000'000, 2'000'000),
                    Step(2, 2'000'000, 3'000'000)};
  timeline.kernels = {Kernel(2'500'000, 2'600'000, 1), Kernel(100'000, 2'200'000, 1),
                      Kernel(1'000'000, 1'010'000, 1)};
  timeline.memcpys = {Memcpy(MemcpyKind::kHostToDevice, 2'900'000, 3'100'000, 1)};
  const auto steps = SummariseGpuSteps(timeline, std::nullopt);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_DOUBLE_EQ(steps[0].busy_fraction, 0.9);
  EXPECT_DOUBLE_EQ(steps[1].busy_fraction, 1.0) << "the long kernel covers all of step 1";
  EXPECT_DOUBLE_EQ(steps[1].kernels_per_step, 1) << "kernels count where they start";
  EXPECT_DOUBLE_EQ(steps[2].busy_fraction, 0.2 + 0.1 + 0.1);
  EXPECT_DOUBLE_EQ(steps[2].kernel_ms, 0.1);
  EXPECT_DOUBLE_EQ(steps[2].memcpy_ms, 0.2) << "a copy counts whole in the step it starts in";
}

TEST(GpuSummary, CountsKernelsTinyOnesAndTheMedianPerStep) {
  Timeline timeline;
  timeline.steps = {Step(0, 0, 1'000'000), Step(1, 1'000'000, 2'000'000)};
  timeline.kernels = {Kernel(0, 2'000, 1), Kernel(10'000, 15'000, 1), Kernel(20'000, 60'000, 1),
                      Kernel(70'000, 170'000, 1), Kernel(1'100'000, 1'103'000, 1)};
  const auto steps = SummariseGpuSteps(timeline, std::nullopt);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_DOUBLE_EQ(steps[0].kernels_per_step, 4);
  EXPECT_DOUBLE_EQ(steps[0].tiny_kernel_share, 0.5);  // 2us and 5us are under kTinyKernelUs
  EXPECT_DOUBLE_EQ(steps[0].median_kernel_us, (5.0 + 40.0) / 2);
  EXPECT_DOUBLE_EQ(steps[1].kernels_per_step, 1);
  EXPECT_DOUBLE_EQ(steps[1].tiny_kernel_share, 1.0);
  EXPECT_DOUBLE_EQ(steps[1].largest_idle_gap_ms, 0.897);
}

TEST(GpuSummary, AStepWithoutDeviceWorkIsIdleThroughout) {
  Timeline timeline;
  timeline.steps = {Step(0, 0, 2'000'000)};
  const GpuSummary step = SummariseGpuSteps(timeline, H100()).at(0);
  EXPECT_DOUBLE_EQ(step.busy_fraction, 0);
  EXPECT_DOUBLE_EQ(step.largest_idle_gap_ms, 2.0);
  EXPECT_DOUBLE_EQ(step.kernels_per_step, 0);
  EXPECT_FALSE(step.achieved_occupancy);
}

TEST(GpuSummary, OccupancyIsWeightedByKernelTimeAndNeedsLimits) {
  Timeline timeline;
  timeline.steps = {Step(0, 0, 1'000'000)};
  // 300us at full occupancy and efficiency; 100us of 66 blocks (half the SMs, 1 of 8 block slots).
  timeline.kernels = {Shaped(0, 300'000, 132 * 8), Shaped(400'000, 500'000, 66)};
  const GpuSummary with_limits = SummariseGpuSteps(timeline, H100()).at(0);
  ASSERT_TRUE(with_limits.achieved_occupancy);
  ASSERT_TRUE(with_limits.sm_efficiency);
  EXPECT_DOUBLE_EQ(*with_limits.achieved_occupancy, (3 * 1.0 + 1 * 0.125) / 4);
  EXPECT_DOUBLE_EQ(*with_limits.sm_efficiency, (3 * 1.0 + 1 * 0.5) / 4);
  EXPECT_FALSE(SummariseGpuSteps(timeline, std::nullopt).at(0).achieved_occupancy);
}

TEST(GpuSummary, SummaryIsTheMedianStep) {
  Timeline timeline;
  timeline.probes = {CuptiRecorded()};
  timeline.steps = {Step(0, 0, 1'000'000), Step(1, 1'000'000, 2'000'000),
                    Step(2, 2'000'000, 3'000'000)};
  timeline.kernels = {Kernel(0, 100'000, 1), Kernel(1'000'000, 1'500'000, 1),
                      Kernel(2'000'000, 2'200'000, 1)};
  const auto summary = SummariseGpu(timeline, std::nullopt);
  ASSERT_TRUE(summary);
  EXPECT_DOUBLE_EQ(summary->busy_fraction, 0.2);
  EXPECT_DOUBLE_EQ(summary->kernel_ms, 0.2);
  EXPECT_DOUBLE_EQ(summary->kernels_per_step, 1);
}

// Every figure of a step, a line: two steps' summaries are equal where their texts are.
std::string Text(const GpuSummary& step) {
  std::ostringstream out;
  out.precision(17);
  out << step.busy_fraction << ' ' << step.kernel_ms << ' ' << step.memcpy_ms << ' '
      << step.largest_idle_gap_ms << ' ' << step.kernels_per_step << ' ' << step.tiny_kernel_share
      << ' ' << step.median_kernel_us << ' ' << step.achieved_occupancy.value_or(-1) << ' '
      << step.sm_efficiency.value_or(-1);
  return out.str();
}

// Steps summarised on 2, 3 and 8 threads are those one thread summarises, figure for figure:
// 200 steps of kernels of many shapes and lengths, some across a step's end, copies and memsets.
TEST(GpuSummary, StepsSummarisedOnSeveralThreadsAreThoseOfOne) {
  Timeline timeline;
  std::mt19937 random(5);
  const auto below = [&](TimeNs n) { return static_cast<TimeNs>(random() % n); };
  for (int step = 0; step < 200; ++step) {
    const TimeNs start = step * 1'000'000;
    timeline.steps.push_back(Step(step, start, start + 1'000'000));
    for (TimeNs at = start + below(5'000); at < start + 1'000'000; at += 1'000 + below(20'000)) {
      timeline.kernels.push_back(
          Shaped(at, at + 500 + below(below(8) == 0 ? 900'000 : 30'000), 1 + below(400)));
      if (below(10) == 0)
        timeline.memcpys.push_back(Memcpy(MemcpyKind::kHostToDevice, at, at + below(9'000), 1));
      if (below(20) == 0) timeline.memsets.push_back(Memset(at, at + below(4'000), 1));
    }
  }
  const std::vector<GpuSummary> one = SummariseGpuSteps(timeline, H100(), 1);
  ASSERT_EQ(one.size(), 200u);
  EXPECT_NE(Text(one[0]), Text(one[1]));  // the steps differ
  for (int threads : {2, 3, 8}) {
    SCOPED_TRACE(threads);
    const std::vector<GpuSummary> many = SummariseGpuSteps(timeline, H100(), threads);
    ASSERT_EQ(many.size(), one.size());
    for (std::size_t step = 0; step < one.size(); ++step) {
      EXPECT_EQ(Text(many[step]), Text(one[step])) << "step " << step;
    }
  }
}

TEST(GpuSummary, NoSummaryWhenTheGpuProbeDidNotRecord) {
  Timeline timeline;
  timeline.steps = {Step(0, 0, 1'000'000)};
  EXPECT_FALSE(SummariseGpu(timeline, std::nullopt)) << "no probe status at all";
  timeline.probes = {ProbeStatus{"cupti", false, "no CUDA driver", 0}};
  EXPECT_FALSE(SummariseGpu(timeline, std::nullopt));
  timeline.probes = {CuptiRecorded()};
  EXPECT_TRUE(SummariseGpu(timeline, std::nullopt)) << "a recorded, idle GPU is a finding";
}

}  // namespace
}  // namespace advisor
