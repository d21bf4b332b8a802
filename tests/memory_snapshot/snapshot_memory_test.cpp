// The report's memory section from a snapshot: what hand_step.pickle's peak holds, worked out by
// hand (make_snapshots.py's hand_step), memory per module instance, the chart's timeline and
// ranges, the OOM; and what a torch 2.0 snapshot without times or ranges still gives.
#include "engine/memory_snapshot/snapshot_memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/memory_snapshot/snapshot_reader.h"
#include "engine/memory_snapshot/snapshot_report.h"

namespace advisor {
namespace {

const std::string kSnapshots = ADVISOR_TEST_SNAPSHOTS_DIR;

RunReport ReportOf(const std::string& name) {
  return ReportOfSnapshot(ReadMemorySnapshot(kSnapshots + "/" + name));
}

const MemoryShare* ShareNamed(const std::vector<MemoryShare>& shares, const std::string& name) {
  for (const MemoryShare& share : shares) {
    if (share.name == name) return &share;
  }
  return nullptr;
}

const ModuleMemory* ModuleNamed(const MemoryStats& memory, const std::string& path) {
  for (const ModuleMemory& module : memory.modules) {
    if (module.path == path) return &module;
  }
  return nullptr;
}

TEST(SnapshotMemory, WhatThePeakHolds) {
  const RunReport report = ReportOf("hand_step.pickle");
  ASSERT_TRUE(report.memory && report.memory->peak);
  const MemoryStats& memory = *report.memory;
  const MemoryPeak& peak = *memory.peak;
  EXPECT_DOUBLE_EQ(peak.mb, 10.5);
  EXPECT_DOUBLE_EQ(memory.peak_allocated_mb, 10.5);
  EXPECT_DOUBLE_EQ(memory.peak_reserved_mb, 22);
  EXPECT_DOUBLE_EQ(peak.time_ms, 0.010);  // event 1, 10 µs after event 0
  EXPECT_EQ(peak.phase, "forward");
  EXPECT_EQ(peak.path, "decoder");  // D's 3 MiB against the encoder's C, 2.5
  EXPECT_EQ(peak.category, "forward");
  ASSERT_EQ(peak.by_category.size(), 2u);
  EXPECT_EQ(peak.by_category[0].name, "forward");
  EXPECT_DOUBLE_EQ(peak.by_category[0].mb, 5.5);
  EXPECT_EQ(peak.by_category[0].allocations, 2);
  EXPECT_EQ(peak.by_category[1].name, "before_history");
  EXPECT_DOUBLE_EQ(peak.by_category[1].mb, 5);
  EXPECT_DOUBLE_EQ(peak.reserved_mb, 20);
  ASSERT_TRUE(peak.largest_free_block_mb);
  EXPECT_DOUBLE_EQ(*peak.largest_free_block_mb, 9.5);

  // A's frames are the segments' (train.py:30); B was freed in the history, which keeps no
  // frames of its allocation. C and D are the model's lines 21 and 22.
  ASSERT_EQ(peak.by_user_frame.size(), 3u);
  EXPECT_EQ(peak.by_user_frame[0].name, "/home/user/train.py:30 in main");
  EXPECT_DOUBLE_EQ(peak.by_user_frame[0].mb, 4);
  EXPECT_EQ(peak.by_user_frame[1].name, "/home/user/model.py:22 in forward");
  EXPECT_DOUBLE_EQ(peak.by_user_frame[1].mb, 3);
  EXPECT_EQ(peak.by_user_frame[2].name, "/home/user/model.py:21 in forward");
}

TEST(SnapshotMemory, MemoryPerModuleInstance) {
  const MemoryStats memory = *ReportOf("hand_step.pickle").memory;
  ASSERT_EQ(memory.modules.size(), 2u);
  // The backward range starts at event 4: C and D are both still live then.
  const ModuleMemory* decoder = ModuleNamed(memory, "decoder");
  ASSERT_NE(decoder, nullptr);
  EXPECT_EQ(decoder->kept_for_backward_mb, 3.0);
  EXPECT_EQ(decoder->forward_peak_mb, 3.0);
  EXPECT_EQ(decoder->backward_peak_mb, std::nullopt);  // no module range in the backward
  const ModuleMemory* encoder = ModuleNamed(memory, "encoder");
  ASSERT_NE(encoder, nullptr);
  EXPECT_EQ(encoder->kept_for_backward_mb, 2.5);
  EXPECT_EQ(memory.modules.front().path, "decoder");  // most kept first
}

TEST(SnapshotMemory, HistoryForTheChart) {
  const MemoryStats memory = *ReportOf("hand_step.pickle").memory;
  ASSERT_TRUE(memory.history);
  const MemoryHistory& history = *memory.history;
  EXPECT_EQ(history.events, 12);
  EXPECT_TRUE(history.timed);
  ASSERT_FALSE(history.timeline.empty());
  EXPECT_DOUBLE_EQ(history.timeline.front().allocated_mb, 5);  // before the first event
  EXPECT_DOUBLE_EQ(history.timeline.front().reserved_mb, 20);
  double highest = 0;
  for (const MemoryPoint& point : history.timeline) highest = std::max(highest, point.allocated_mb);
  EXPECT_DOUBLE_EQ(highest, 10.5);  // the thinning keeps the peak
  EXPECT_DOUBLE_EQ(history.timeline.back().reserved_mb, 22);

  ASSERT_EQ(history.spans.size(), 5u);
  EXPECT_EQ(history.spans[0].kind, MemorySpan::Kind::kPhase);
  EXPECT_EQ(history.spans[0].label, "forward");
  EXPECT_DOUBLE_EQ(history.spans[0].start_ms, -0.009);  // 1001 µs; the first event is at 1010
  EXPECT_EQ(history.spans[1].label, "encoder");

  ASSERT_EQ(history.ooms.size(), 1u);
  EXPECT_DOUBLE_EQ(history.ooms[0].requested_mb, 64);
  EXPECT_DOUBLE_EQ(history.ooms[0].device_free_mb, 3);
  EXPECT_DOUBLE_EQ(history.ooms[0].allocated_mb, 6.25);
  EXPECT_DOUBLE_EQ(history.ooms[0].reserved_mb, 22);
  EXPECT_DOUBLE_EQ(history.end_replayed_mb, 6.25);
  EXPECT_DOUBLE_EQ(history.end_segments_mb, 6.25);
}

TEST(SnapshotMemory, ATorch20SnapshotStillGivesThePeakByFrames) {
  const RunReport report = ReportOf("legacy_layout.pickle");
  const MemoryStats& memory = *report.memory;
  EXPECT_FALSE(memory.history->timed);
  EXPECT_TRUE(memory.modules.empty());
  EXPECT_TRUE(memory.history->spans.empty());
  EXPECT_EQ(memory.peak->path, "");
  // The peak is the second step's first backward temporary (event 77: activations, gradients
  // and optimizer state all live): backward allocations have no Python frames, so its phase
  // cannot be told.
  EXPECT_EQ(memory.peak->phase, "");
  EXPECT_NE(ShareNamed(memory.peak->by_category, "forward"), nullptr);
  EXPECT_NE(ShareNamed(memory.peak->by_category, "unknown"), nullptr);
  EXPECT_NE(std::find(report.data_quality.begin(), report.data_quality.end(),
                      "the history's entries have no time_us (torch 2.0): times are the events' "
                      "indices, and record_function ranges cannot be placed"),
            report.data_quality.end());
}

TEST(SnapshotMemory, TheReportSaysWhatASnapshotCannotFill) {
  const RunReport report = ReportOf("hand_step.pickle");
  EXPECT_EQ(report.run.mode, Door::kSnapshot);
  EXPECT_EQ(report.run.device_name, "cuda:0");
  std::vector<std::string> absent;
  for (const AbsentSection& section : report.absent) absent.push_back(section.section);
  EXPECT_EQ(absent, (std::vector<std::string>{"step", "bisection", "hotspot", "cross_check",
                                              "modules", "ops", "gpu", "data", "fixes"}));
  EXPECT_TRUE(report.data_quality.empty()) << report.data_quality.front();
}

}  // namespace
}  // namespace advisor
