#include "engine/analysis/window_memory.h"

#include <gtest/gtest.h>

#include <string>

namespace advisor {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

MarkerEvent Marker(const char* path, MarkerKind kind, TimeNs time, ThreadId thread = 1) {
  return {ModulePath(path), kind, thread, time};
}

MemoryEvent Alloc(std::uint64_t address, double mib, TimeNs time, ThreadId thread = 1,
                  std::int32_t device = -1) {
  return {address, static_cast<std::int64_t>(mib * kMiB), device, thread, time};
}

MemoryEvent Free(std::uint64_t address, double mib, TimeNs time, ThreadId thread = 1,
                 std::int32_t device = -1) {
  return {address, -static_cast<std::int64_t>(mib * kMiB), device, thread, time};
}

const ModuleMemory* Find(const WindowMemory& memory, const std::string& path) {
  for (const ModuleMemory& module : memory.modules) {
    if (module.path == path) return &module;
  }
  return nullptr;
}

double Share(const std::vector<MemoryShare>& shares, const std::string& name) {
  for (const MemoryShare& share : shares) {
    if (share.name == name) return share.mb;
  }
  return 0;
}

// One step: forward [0, 40) calls a then b, backward [40, 80) runs b's then a's, optimizer to 100.
// a keeps 1 MiB for backward and frees a 4 MiB temporary; b keeps 8 MiB and frees 2 MiB; b's
// backward makes a 3 MiB temporary, a's a 0.5 MiB gradient.
Timeline TwoModuleStep() {
  Timeline timeline;
  timeline.steps.push_back(StepOfPhases(0, 0, 0, 40, 80, 100));
  timeline.markers = {
      Marker("a", MarkerKind::kForwardEnter, 1),   Marker("a", MarkerKind::kForwardExit, 10),
      Marker("b", MarkerKind::kForwardEnter, 10),  Marker("b", MarkerKind::kForwardExit, 30),
      Marker("b", MarkerKind::kBackwardBegin, 45), Marker("b", MarkerKind::kBackwardEnd, 55),
      Marker("a", MarkerKind::kBackwardBegin, 55), Marker("a", MarkerKind::kBackwardEnd, 65)};
  timeline.memory = {
      Alloc(1, 4, 2), Free(1, 4, 5),   Alloc(2, 1, 6), Alloc(3, 8, 12), Alloc(4, 2, 14),
      Free(4, 2, 20), Alloc(5, 3, 46), Free(3, 8, 50), Free(5, 3, 52),  Alloc(6, 0.5, 56),
      Free(2, 1, 60), Free(99, 64, 70)};  // allocated before the window: no allocation's
  return timeline;
}

TEST(WindowMemory, NamesThePeakItsPhaseAndTheInstanceHoldingMost) {
  const WindowMemory memory = AttributeWindowMemory(TwoModuleStep(), {2.0, 0.0});
  ASSERT_TRUE(memory.peak.has_value());
  // At 46 ns: a's 1 MiB and b's 8 MiB kept for backward, b's backward's 3 MiB, 2 MB resident.
  EXPECT_DOUBLE_EQ(memory.peak->mb, 14.0);
  EXPECT_EQ(memory.peak->phase, "backward");
  EXPECT_EQ(memory.peak->path, "b");
  EXPECT_EQ(memory.peak->category, "activations");
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_category, "activations"), 9.0);
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_category, "temporaries"), 3.0);
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_category, "parameters"), 2.0);
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_module, "b"), 11.0);
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_module, "a"), 1.0);
}

TEST(WindowMemory, MeasuresEachInstancesKeptBytesAndPeaks) {
  const WindowMemory memory = AttributeWindowMemory(TwoModuleStep(), {});
  ASSERT_EQ(memory.modules.size(), 2u);
  EXPECT_EQ(memory.modules[0].path, "b") << "most kept for backward first";
  const ModuleMemory* a = Find(memory, "a");
  const ModuleMemory* b = Find(memory, "b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(*b->kept_for_backward_mb, 8.0);
  EXPECT_DOUBLE_EQ(*b->forward_peak_mb, 10.0);
  EXPECT_DOUBLE_EQ(*b->backward_peak_mb, 3.0);
  EXPECT_DOUBLE_EQ(*a->kept_for_backward_mb, 1.0);
  EXPECT_DOUBLE_EQ(*a->forward_peak_mb, 4.0);
  EXPECT_DOUBLE_EQ(*a->backward_peak_mb, 0.5);
  ASSERT_EQ(memory.step_end_mb.size(), 1u);
  EXPECT_DOUBLE_EQ(memory.step_end_mb[0], 0.5) << "the gradient outlives the step";
}

TEST(WindowMemory, AnotherThreadsAllocationIsNotTheOpenInstancesOwn) {
  Timeline timeline = TwoModuleStep();
  timeline.memory.push_back(Alloc(7, 32, 3, /*thread=*/2));  // a loader thread, during a's forward
  timeline.memory.push_back(Free(7, 32, 4, /*thread=*/2));
  const WindowMemory memory = AttributeWindowMemory(timeline, {});
  EXPECT_DOUBLE_EQ(*Find(memory, "a")->forward_peak_mb, 4.0);
  EXPECT_DOUBLE_EQ(memory.peak->mb, 36.0) << "it still counts in the step's memory";
  EXPECT_EQ(memory.peak->path, "a") << "its 4 MiB temporary, not the thread's 32";
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_module, "a"), 4.0);
}

TEST(WindowMemory, ReplaysTheDeviceWithTheLargestAllocations) {
  Timeline timeline = TwoModuleStep();
  for (MemoryEvent& event : timeline.memory) event.device = 0;
  timeline.memory.push_back(Alloc(1, 1, 21));  // host staging, on the CPU
  const WindowMemory memory = AttributeWindowMemory(timeline, {});
  EXPECT_DOUBLE_EQ(memory.peak->mb, 12.0);
}

TEST(WindowMemory, StepEndsClimbWhereEachStepKeepsWhatItAllocated) {
  Timeline timeline;
  for (int i = 0; i < 3; ++i) {
    const TimeNs start = 100 * i;
    timeline.steps.push_back(StepOfPhases(i, start, start, start + 40, start + 80, start + 100));
    timeline.memory.push_back(Alloc(10 + i, 2, start + 5));  // kept: a leak
    timeline.memory.push_back(Alloc(20 + i, 5, start + 6));  // an activation
    timeline.memory.push_back(Free(20 + i, 5, start + 50));
  }
  const WindowMemory memory = AttributeWindowMemory(timeline, {});
  EXPECT_EQ(memory.step_end_mb, (std::vector<double>{2, 4, 6}));
  EXPECT_DOUBLE_EQ(memory.peak->mb, 11.0) << "the last step's 2 + 5 MiB above two steps' leaks";
}

TEST(WindowMemory, NothingWithoutAllocations) {
  Timeline timeline;
  timeline.steps.push_back(StepOfPhases(0, 0, 0, 40, 80, 100));
  const WindowMemory memory = AttributeWindowMemory(timeline, {});
  EXPECT_FALSE(memory.peak.has_value());
  EXPECT_TRUE(memory.modules.empty());
}

}  // namespace
}  // namespace advisor
