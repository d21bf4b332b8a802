#include "engine/window/measured_window.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/analysis/segmented_timeline.h"

namespace advisor {
namespace {

using testing::ThreeStepsTheLastTwoSpanned;

// Each segment is read where it was placed, and what was read added on the calling thread in the
// ops' order, with any number of threads.
TEST(MeasureWindowBySegment, AttributesAsMeasureWindowDoesWithoutHoldingThePlacements) {
  const MeasuredWindow whole = MeasureWindow(ThreeStepsTheLastTwoSpanned());
  const std::thread::id caller = std::this_thread::get_id();
  for (const int threads : {1, 3}) {
    std::atomic<int> read{0};
    std::vector<std::size_t> firsts;
    std::size_t placed = 0;
    const MeasuredWindow by_segment = MeasureWindowBySegment(
        ThreeStepsTheLastTwoSpanned(),
        [&](const Timeline& timeline, const OpPlacements& segment) -> std::function<void()> {
          EXPECT_EQ(timeline.ops.size(), whole.timeline.ops.size());
          ++read;
          return [&, first = segment.first(), size = segment.size()] {
            EXPECT_EQ(std::this_thread::get_id(), caller) << "added on the calling thread";
            firsts.push_back(first);
            placed += size;
          };
        },
        threads);
    EXPECT_EQ(read, 3) << threads;
    EXPECT_EQ(firsts, (std::vector<std::size_t>{0, 2, 10})) << threads;
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
}

// A GPU window's ops placed a segment at a time on any number of threads: every op's placement
// kept, and every sum of the attribution MeasureWindow's, device time included, to the last bit.
TEST(MeasureWindowOnThreads, PlacesAndAttributesAsMeasureWindowDoes) {
  Timeline timeline = ThreeStepsTheLastTwoSpanned();
  timeline.op_correlation_ids.resize(timeline.ops.size());
  std::iota(timeline.op_correlation_ids.begin(), timeline.op_correlation_ids.end(), 1);
  timeline.probes.push_back({"cupti", true, "", 0});
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    KernelEvent kernel;  // each op's 1 us longer than the one before: no two sums alike
    kernel.start_ns = timeline.ops[i].start_ns;
    kernel.end_ns = kernel.start_ns + 1000 * static_cast<TimeNs>(i + 1);
    kernel.external_id = i + 1;
    timeline.kernels.push_back(kernel);
  }
  const MeasuredWindow whole = MeasureWindow(timeline);
  ASSERT_TRUE(whole.attribution->has_gpu());
  for (const int threads : {1, 2, 3, 8}) {
    const MeasuredWindow on_threads = MeasureWindowOnThreads(timeline, threads);
    ASSERT_EQ(on_threads.placements.size(), whole.placements.size()) << threads;
    for (std::size_t i = 0; i < whole.placements.size(); ++i) {
      EXPECT_EQ(on_threads.placements[i].step, whole.placements[i].step) << i;
      EXPECT_EQ(on_threads.placements[i].phase, whole.placements[i].phase) << i;
      EXPECT_EQ(on_threads.placements.ModuleOf(i), whole.placements.ModuleOf(i)) << i;
      EXPECT_EQ(on_threads.placements[i].parent, whole.placements[i].parent) << i;
      EXPECT_EQ(on_threads.placements[i].top_level, whole.placements[i].top_level) << i;
    }
    const WindowAttribution& attribution = *on_threads.attribution;
    ASSERT_EQ(attribution.StepOps().size(), whole.attribution->StepOps().size()) << threads;
    for (std::size_t i = 0; i < attribution.StepOps().size(); ++i) {
      const OpCost& op = attribution.StepOps()[i];
      const OpCost& expected = whole.attribution->StepOps()[i];
      EXPECT_EQ(op.name, expected.name) << threads;
      EXPECT_EQ(op.cost.gpu_ms, expected.cost.gpu_ms) << op.name << ", " << threads;
      EXPECT_EQ(op.self_gpu_ms, expected.self_gpu_ms) << op.name << ", " << threads;
      EXPECT_EQ(op.self_host_ms, expected.self_host_ms) << op.name << ", " << threads;
    }
    for (const char* path : {"", "encoder", "encoder.layer"}) {
      EXPECT_EQ(attribution.Inclusive(path).forward.gpu_ms,
                whole.attribution->Inclusive(path).forward.gpu_ms)
          << path << ", " << threads;
      EXPECT_EQ(attribution.Inclusive(path).backward.gpu_ms,
                whole.attribution->Inclusive(path).backward.gpu_ms)
          << path << ", " << threads;
    }
  }
  // encoder.layer's forward in the median step: aten::linear (op 3 + 8k) with the aten::addmm
  // inside it, their kernels 4 + 8k and 5 + 8k us long; CheckpointFunction's own is no module's.
  EXPECT_NEAR(whole.attribution->Inclusive("encoder.layer").forward.gpu_ms, (12 + 13) * 1e-3, 1e-9);
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
