#include "engine/gpu/gpu_attribution.h"

#include <gtest/gtest.h>

#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor {
namespace {

using namespace testing;

class GpuAttributionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    timeline_.steps = {Step(0, 0, 10'000)};
    SetOps(timeline_, {
        Op("aten::linear", 100, 900, 1, 0),           // 0: forward, in blocks.0.mlp
        Op("aten::addmm", 200, 800, 2, 1),            // 1
        Op("MmBackward0", 6'000, 6'500, 3, 0, 2, OpScope::kBackward),  // 2
        Op("aten::copy_", 20'000, 20'100, 4, 0),      // 3: after the step
    });
    placements_ = {Placed(0, Phase::kForward, "blocks.0.mlp"),
                   Placed(0, Phase::kForward, "blocks.0.mlp"),
                   Placed(0, Phase::kBackward, "blocks.0.mlp"), Placed(-1, Phase::kOutside)};
    timeline_.kernels = {Kernel(1'000, 1'400, 2), Kernel(1'400, 1'500, 2),
                         Kernel(6'600, 7'000, 3), Kernel(20'200, 20'300, 4),
                         Kernel(8'000, 8'050, 0), Kernel(8'100, 8'150, 77)};
    timeline_.memcpys = {Memcpy(MemcpyKind::kHostToDevice, 300, 350, 1)};
    timeline_.memsets = {Memset(6'550, 6'560, 3)};
    timeline_.probes = {CuptiRecorded()};
  }

  Timeline timeline_;
  OpPlacements placements_;
};

TEST_F(GpuAttributionTest, ChargesWorkToTheInnermostLaunchingOp) {
  const GpuAttribution attribution = AttributeGpuTime(timeline_, placements_);
  ASSERT_EQ(attribution.by_op.size(), 4u);
  EXPECT_EQ(attribution.by_op[1].kernel_ns, 500);
  EXPECT_EQ(attribution.by_op[1].kernels, 2);
  EXPECT_EQ(attribution.by_op[0].kernel_ns, 0) << "its kernels belong to aten::addmm";
  EXPECT_EQ(attribution.by_op[0].memcpy_ns, 50);
  EXPECT_EQ(attribution.by_op[2].kernel_ns, 400);
  EXPECT_EQ(attribution.by_op[2].memset_ns, 10);
  EXPECT_EQ(attribution.by_op[3].kernel_ns, 100);
}

TEST_F(GpuAttributionTest, GroupsByOpNameModuleAndPhaseInsideSteps) {
  const GpuAttribution attribution = AttributeGpuTime(timeline_, placements_);
  EXPECT_EQ(attribution.by_op_name.at("aten::addmm").kernel_ns, 500);
  EXPECT_EQ(attribution.by_op_name.at("MmBackward0").device_ns(), 410);
  EXPECT_EQ(attribution.by_op_name.count("aten::copy_"), 0u) << "outside every step";
  EXPECT_EQ(attribution.by_module.at("blocks.0.mlp").device_ns(), 500 + 50 + 410);
  EXPECT_EQ(attribution.by_phase.at(Phase::kForward).device_ns(), 550);
  EXPECT_EQ(attribution.by_phase.at(Phase::kBackward).device_ns(), 410);
}

TEST_F(GpuAttributionTest, KeepsWorkWithoutAnOpAndOutsideStepsApart) {
  const GpuAttribution attribution = AttributeGpuTime(timeline_, placements_);
  EXPECT_EQ(attribution.outside_steps.kernel_ns, 100);
  EXPECT_EQ(attribution.without_op.kernel_ns, 100) << "external id 0 and an id no op carries";
  EXPECT_EQ(attribution.without_op.kernels, 2);
  EXPECT_EQ(attribution.total.device_ns(), 500 + 400 + 100 + 100 + 50 + 10);
  EXPECT_EQ(attribution.total.kernels, 6);
}

TEST_F(GpuAttributionTest, GivesDeviceMillisecondsPerOpForWindowAttribution) {
  const std::vector<double> ms = AttributeGpuTime(timeline_, placements_).DeviceMsByOp();
  ASSERT_EQ(ms.size(), timeline_.ops.size());
  EXPECT_DOUBLE_EQ(ms[0], 50e-6);
  EXPECT_DOUBLE_EQ(ms[1], 500e-6);
  EXPECT_DOUBLE_EQ(ms[2], 410e-6);
}

TEST_F(GpuAttributionTest, WithoutARecordingProbeThereAreNoGpuMillisecondsToRankBy) {
  timeline_.probes = {ProbeStatus{"cupti", false, "no CUDA driver", 0}};
  const GpuAttribution attribution = AttributeGpuTime(timeline_, placements_);
  EXPECT_FALSE(attribution.recorded);
  EXPECT_TRUE(attribution.DeviceMsByOp().empty());
  EXPECT_TRUE(DeviceMsByOp(timeline_).empty());
}

// Before any op is placed (a window placed a segment at a time on several threads), each op's
// device milliseconds are the placed attribution's, to the last bit.
TEST_F(GpuAttributionTest, DeviceMillisecondsPerOpNeedNoPlacements) {
  const std::vector<double> placed = AttributeGpuTime(timeline_, placements_).DeviceMsByOp();
  EXPECT_EQ(DeviceMsByOp(timeline_), placed);
  EXPECT_EQ(placed[2], 410e-6) << "MmBackward0's kernel and memset, summed in nanoseconds";
  timeline_.kernels.clear();
  timeline_.memcpys.clear();
  timeline_.memsets.clear();
  EXPECT_EQ(DeviceMsByOp(timeline_), std::vector<double>(timeline_.ops.size(), 0.0))
      << "the probe recorded an idle device";
}

}  // namespace
}  // namespace advisor
