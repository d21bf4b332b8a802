#include "engine/window/measured_window.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tests/analysis/segmented_timeline.h"

namespace advisor {
namespace {

using testing::ThreeStepsTheLastTwoSpanned;

TEST(MeasureWindowBySegment, AttributesAsMeasureWindowDoesWithoutHoldingThePlacements) {
  const MeasuredWindow whole = MeasureWindow(ThreeStepsTheLastTwoSpanned());
  std::vector<std::size_t> firsts;
  std::size_t placed = 0;
  const MeasuredWindow by_segment = MeasureWindowBySegment(
      ThreeStepsTheLastTwoSpanned(), [&](const Timeline& timeline, const OpPlacements& segment) {
        EXPECT_EQ(timeline.ops.size(), whole.timeline.ops.size());
        firsts.push_back(segment.first());
        placed += segment.size();
      });
  EXPECT_EQ(firsts, (std::vector<std::size_t>{0, 2, 10}));
  EXPECT_EQ(placed, whole.timeline.ops.size());
  EXPECT_TRUE(by_segment.placements.empty());
  EXPECT_EQ(by_segment.timeline.ops.size(), whole.timeline.ops.size());
  ASSERT_EQ(by_segment.attribution->StepOps().size(), whole.attribution->StepOps().size());
  for (std::size_t i = 0; i < whole.attribution->StepOps().size(); ++i) {
    const OpCost& op = by_segment.attribution->StepOps()[i];
    EXPECT_EQ(op.name, whole.attribution->StepOps()[i].name);
    EXPECT_EQ(op.cost.host_ms, whole.attribution->StepOps()[i].cost.host_ms) << op.name;
    EXPECT_EQ(op.self_host_ms, whole.attribution->StepOps()[i].self_host_ms) << op.name;
  }
  EXPECT_EQ(by_segment.attribution->Step().forward.host_ms,
            whole.attribution->Step().forward.host_ms);
  EXPECT_FALSE(by_segment.attribution->has_gpu());
}

// A GPU record names its op by index once the window is built (GPU time, syncs, copies): such a
// window keeps every op's placement, MeasureWindow's.
TEST(MeasureWindowBySegment, AWindowWithGpuRecordsIsNotPlaceableBySegment) {
  Timeline timeline = ThreeStepsTheLastTwoSpanned();
  EXPECT_TRUE(PlaceableBySegment(timeline));
  KernelEvent kernel;
  kernel.external_id = 1;
  timeline.kernels.push_back(kernel);
  EXPECT_FALSE(PlaceableBySegment(timeline));
  EXPECT_THROW(MeasureWindowBySegment(timeline, nullptr), std::logic_error);
}

}  // namespace
}  // namespace advisor
