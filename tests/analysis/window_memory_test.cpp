#include "engine/analysis/window_memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

double TotalAt(const StepMemoryPoint& point) {
  double total = 0;
  for (const double mb : point.mb) total += mb;
  return total;
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

// On CUDA: TwoModuleStep on device 0, the allocator holding 2 MiB of parameters, 64 MiB the
// window frees at `free_at` and 5 MiB it never frees as the window began.
Timeline HeldBeforeTheWindow(TimeNs free_at) {
  Timeline timeline = TwoModuleStep();
  for (MemoryEvent& event : timeline.memory) {
    event.device = 0;
    if (event.address == 99) event.time_ns = free_at;
  }
  timeline.memory_at_start = MemoryAtStart{0, (2 + 64 + 5) * kMiB};
  return timeline;
}

TEST(WindowMemory, WhatWasHeldAsTheWindowBeganCountsInThePeakOnce) {
  const WindowMemory memory = AttributeWindowMemory(HeldBeforeTheWindow(70), {2.0, 0.0});
  ASSERT_TRUE(memory.peak.has_value());
  // TwoModuleStep's 14 MB at 46 ns (the parameters' 2 among them), and the 69 held beyond them.
  EXPECT_DOUBLE_EQ(memory.peak->mb, 83.0);
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_category, "before_window"), 69.0);
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_category, "parameters"), 2.0) << "not counted twice";
  EXPECT_EQ(memory.peak->category, "before_window");
  EXPECT_EQ(memory.peak->path, "b") << "no instance's";
  ASSERT_EQ(memory.step_end_mb.size(), 1u);
  EXPECT_DOUBLE_EQ(memory.step_end_mb[0], 0.5) << "growth is the window's own allocations'";
  ASSERT_TRUE(memory.timeline.has_value());
  ASSERT_GE(memory.timeline->categories.size(), 2u);
  EXPECT_EQ(memory.timeline->categories[1], "before_window") << "above the parameters";
  EXPECT_DOUBLE_EQ(TotalAt(memory.timeline->points.front()), 71.0);
  EXPECT_DOUBLE_EQ(TotalAt(memory.timeline->points.back()), 7.5) << "the 64 MiB freed at 70";
}

TEST(WindowMemory, AFreeOfWhatWasHeldBeforeMovesThePeakToWhereTheSumIsHighest) {
  // Freed at 20: the most is at 14 ns, in b's forward: 69 held, 11 allocated, 2 resident.
  const WindowMemory memory = AttributeWindowMemory(HeldBeforeTheWindow(20), {2.0, 0.0});
  ASSERT_TRUE(memory.peak.has_value());
  EXPECT_DOUBLE_EQ(memory.peak->mb, 82.0);
  EXPECT_EQ(memory.peak->phase, "forward");
  EXPECT_DOUBLE_EQ(Share(memory.peak->by_category, "before_window"), 69.0);
}

TEST(WindowMemory, NothingIsCountedBeforeTheWindowWithoutTheDevicesCounter) {
  Timeline other_device = HeldBeforeTheWindow(70);
  other_device.memory_at_start->device = 1;
  Timeline within_the_resident = HeldBeforeTheWindow(70);
  within_the_resident.memory_at_start->bytes = 2 * kMiB;
  Timeline cpu = HeldBeforeTheWindow(70);
  cpu.memory_at_start.reset();
  for (const Timeline* timeline : {&other_device, &within_the_resident, &cpu}) {
    const WindowMemory memory = AttributeWindowMemory(*timeline, {2.0, 0.0});
    EXPECT_DOUBLE_EQ(memory.peak->mb, 14.0);
    EXPECT_DOUBLE_EQ(Share(memory.peak->by_category, "before_window"), 0.0);
  }
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

const MemorySpan* FindSpan(const StepMemoryTimeline& timeline, const std::string& label) {
  for (const MemorySpan& span : timeline.spans) {
    if (span.label == label) return &span;
  }
  return nullptr;
}

TEST(WindowMemory, TimelineOfThePeaksStepStacksTheCategoriesAndKeepsThePeak) {
  const WindowMemory memory = AttributeWindowMemory(TwoModuleStep(), {2.0, 0.0});
  ASSERT_TRUE(memory.timeline.has_value());
  const StepMemoryTimeline& timeline = *memory.timeline;
  EXPECT_DOUBLE_EQ(timeline.step_ms, 100e-6);
  ASSERT_FALSE(timeline.categories.empty());
  EXPECT_EQ(timeline.categories.front(), "parameters") << "the resident bytes at the bottom";
  ASSERT_GE(timeline.points.size(), 3u);
  EXPECT_DOUBLE_EQ(timeline.points.front().time_ms, 0);
  EXPECT_DOUBLE_EQ(TotalAt(timeline.points.front()), 2.0) << "only the parameters at the start";
  EXPECT_DOUBLE_EQ(timeline.points.back().time_ms, 100e-6);
  EXPECT_DOUBLE_EQ(TotalAt(timeline.points.back()), 2.5) << "a's gradient stays";
  double highest = 0;
  const StepMemoryPoint* at_peak = nullptr;
  for (const StepMemoryPoint& point : timeline.points) {
    ASSERT_EQ(point.mb.size(), timeline.categories.size());
    if (TotalAt(point) > highest) {
      highest = TotalAt(point);
      at_peak = &point;
    }
  }
  EXPECT_DOUBLE_EQ(highest, memory.peak->mb) << "the peak is a point, not thinned away";
  EXPECT_DOUBLE_EQ(at_peak->time_ms, memory.peak->time_ms);
  for (std::size_t i = 0; i < timeline.categories.size(); ++i) {
    EXPECT_DOUBLE_EQ(at_peak->mb[i], Share(memory.peak->by_category, timeline.categories[i]))
        << timeline.categories[i];
  }
}

TEST(WindowMemory, TimelineSpansAreThePhasesAndTheInstancesCallsByDepth) {
  Timeline timeline = TwoModuleStep();
  // a's forward calls a.inner: one level deeper among the instrumented instances.
  timeline.markers.push_back(Marker("a.inner", MarkerKind::kForwardEnter, 3));
  timeline.markers.push_back(Marker("a.inner", MarkerKind::kForwardExit, 4));
  const WindowMemory memory = AttributeWindowMemory(timeline, {});
  ASSERT_TRUE(memory.timeline.has_value());
  const StepMemoryTimeline& drawn = *memory.timeline;
  int phases = 0, modules = 0;
  for (const MemorySpan& span : drawn.spans) {
    (span.kind == MemorySpan::Kind::kPhase ? phases : modules) += 1;
  }
  EXPECT_EQ(phases, 3) << "forward, backward, optimizer";
  EXPECT_EQ(modules, 5) << "a and b forward and backward, a.inner's forward";
  const MemorySpan* forward = FindSpan(drawn, "forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_DOUBLE_EQ(forward->end_ms, 40e-6);
  const MemorySpan* a = FindSpan(drawn, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(a->start_ms, 1e-6);
  EXPECT_DOUBLE_EQ(a->end_ms, 10e-6);
  EXPECT_EQ(a->depth, 0);
  ASSERT_NE(FindSpan(drawn, "a.inner"), nullptr);
  EXPECT_EQ(FindSpan(drawn, "a.inner")->depth, 1);
  for (std::size_t i = 1; i < drawn.spans.size(); ++i) {
    EXPECT_LE(drawn.spans[i - 1].start_ms, drawn.spans[i].start_ms) << "in time order";
  }
}

TEST(WindowMemory, TimelineIsBoundedAndStillHoldsThePeak) {
  Timeline timeline;
  constexpr int kCalls = 5000;
  timeline.steps.push_back(StepOfPhases(0, 0, 0, 40 * kCalls, 80 * kCalls, 100 * kCalls));
  // Each call allocates and frees a temporary, call 3001 a spike far narrower than a stretch.
  for (int i = 0; i < kCalls; ++i) {
    const TimeNs at = 40 * i;
    const double mib = i == 3001 ? 64 : 1 + (i % 7);
    timeline.markers.push_back(Marker("layer", MarkerKind::kForwardEnter, at));
    timeline.markers.push_back(Marker("layer", MarkerKind::kForwardExit, at + 30));
    timeline.memory.push_back(Alloc(i + 1, mib, at + 1));
    timeline.memory.push_back(Free(i + 1, mib, at + 2));
  }
  const WindowMemory memory = AttributeWindowMemory(timeline, {});
  ASSERT_TRUE(memory.timeline.has_value());
  EXPECT_LE(memory.timeline->points.size(), kStepTimelinePoints + 2);
  EXPECT_EQ(memory.timeline->spans.size(), kStepTimelineSpans + 3) << "the widest, and the phases";
  double highest = 0;
  for (const StepMemoryPoint& point : memory.timeline->points) {
    highest = std::max(highest, TotalAt(point));
  }
  EXPECT_DOUBLE_EQ(highest, memory.peak->mb);
  EXPECT_DOUBLE_EQ(memory.peak->mb, 64);
}

TEST(WindowMemory, InstancesHoldingAlikeAtThePeakAreTied) {
  Timeline timeline = TwoModuleStep();
  // c, after b, keeps 8 MiB for the backward as b does: repeated blocks.
  timeline.markers.push_back(Marker("c", MarkerKind::kForwardEnter, 31));
  timeline.markers.push_back(Marker("c", MarkerKind::kForwardExit, 35));
  timeline.memory.push_back(Alloc(7, 8, 32));
  const WindowMemory memory = AttributeWindowMemory(timeline, {});
  ASSERT_TRUE(memory.peak.has_value());
  EXPECT_EQ(memory.peak->path, "b") << "b's backward temporary puts it ahead";
  EXPECT_TRUE(memory.peak->tied_with.empty());
  timeline.memory.push_back(Alloc(8, 3, 33));  // c's own 3 MiB more: now alike
  timeline.memory.push_back(Free(8, 3, 47));
  const WindowMemory tied = AttributeWindowMemory(timeline, {});
  EXPECT_EQ(tied.peak->tied_with, (std::vector<std::string>{"c"}));
}

}  // namespace
}  // namespace advisor
