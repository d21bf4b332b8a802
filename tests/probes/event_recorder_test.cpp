#include "probes/ops/event_recorder.h"

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <thread>

#include "probes/ops/page_faults.h"

namespace advisor {
namespace {

TEST(EventRecorder, RecordsNestedOpsAndMarkersPerThreadOnlyWhileRecording) {
  EventRecorder& recorder = EventRecorder::Get();
  recorder.RecordMarker("ignored", MarkerKind::kForwardEnter, 1);  // before Start: dropped
  recorder.Start();
  const auto outer = recorder.BeginOp("aten::linear", OpScope::kForward, 1, 5, 0, 0);
  const auto inner = recorder.BeginOp("aten::addmm", OpScope::kForward, 1, 6, 0, 0);
  recorder.EndOp(inner);
  recorder.EndOp(outer);
  std::thread worker([&] {
    recorder.RecordMarker("head", MarkerKind::kBackwardBegin, 2);
    recorder.EndOp(recorder.BeginOp("AddmmBackward0", OpScope::kBackward, 2, 6, 1, 0));
  });
  worker.join();
  recorder.BeginOp("aten::never_closed", OpScope::kForward, 1, -1, 0, 0);
  recorder.Stop();

  Timeline timeline;
  recorder.CollectInto(timeline);
  ASSERT_EQ(timeline.ops.size(), 3u) << "the op still open at Stop is left out";
  EXPECT_EQ(timeline.ops[0].name, "aten::linear");
  EXPECT_EQ(timeline.ops[0].depth, 0);
  EXPECT_EQ(timeline.ops[1].depth, 1);
  EXPECT_LE(timeline.ops[0].start_ns, timeline.ops[1].start_ns);
  EXPECT_GE(timeline.ops[0].end_ns, timeline.ops[1].end_ns);
  EXPECT_EQ(timeline.ops[2].name, "AddmmBackward0");
  EXPECT_EQ(timeline.SequenceOf(2).forward_thread, 1u);
  ASSERT_EQ(timeline.markers.size(), 1u);
  EXPECT_EQ(timeline.markers[0].path, "head");

  Timeline again;
  recorder.CollectInto(again);
  EXPECT_TRUE(again.ops.empty()) << "collection moves events out";
}

// The recorder keeps each thread's names by the address they came at: an address that held one
// name and then another (a label's string freed and the next made there) is named by what it
// holds when the op begins.
TEST(EventRecorder, NamesAnOpByTheTextAtItsAddressNow) {
  EventRecorder& recorder = EventRecorder::Get();
  recorder.Start();
  char label[] = "label_a";
  recorder.EndOp(recorder.BeginOp(label, OpScope::kUser, 1, -1, 0, 0));
  recorder.EndOp(recorder.BeginOp(label, OpScope::kUser, 1, -1, 0, 0));
  label[6] = 'b';
  recorder.EndOp(recorder.BeginOp(label, OpScope::kUser, 1, -1, 0, 0));
  recorder.Stop();
  Timeline timeline;
  recorder.CollectInto(timeline);
  ASSERT_EQ(timeline.ops.size(), 3u);
  EXPECT_EQ(timeline.ops[0].name, "label_a");
  EXPECT_EQ(timeline.ops[1].name, "label_a");
  EXPECT_EQ(timeline.ops[2].name, "label_b");
}

TEST(EventRecorder, ANewWindowDiscardsTheLastOnesLeftovers) {
  EventRecorder& recorder = EventRecorder::Get();
  recorder.Start();
  recorder.EndOp(recorder.BeginOp("aten::old", OpScope::kForward, 1, -1, 0, 0));
  recorder.Stop();
  recorder.Start();
  recorder.EndOp(recorder.BeginOp("aten::new", OpScope::kForward, 1, -1, 0, 0));
  recorder.Stop();
  Timeline timeline;
  recorder.CollectInto(timeline);
  ASSERT_EQ(timeline.ops.size(), 1u);
  EXPECT_EQ(timeline.ops[0].name, "aten::new");
}

// Writes a byte to each page of `bytes` of fresh anonymous memory, small pages.
void TouchFreshPages(std::size_t bytes) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  madvise(memory, bytes, MADV_NOHUGEPAGE);
  auto* bytes_of = static_cast<volatile char*>(memory);
  for (std::size_t offset = 0; offset < bytes; offset += 4096) bytes_of[offset] = 1;
  munmap(memory, bytes);
}

TEST(EventRecorder, TopLevelOpsCountThePageFaultsTheirThreadTookWhenAsked) {
  EventRecorder& recorder = EventRecorder::Get();
  recorder.Start(/*count_page_faults=*/true);
  const auto outer = recorder.BeginOp("ReluBackward0", OpScope::kBackward, 1, 3, 1, 0);
  const auto inner = recorder.BeginOp("aten::threshold_backward", OpScope::kBackward, 1, -1, 1, 0);
  TouchFreshPages(std::size_t{2} << 20);  // 512 pages of 4 KiB
  recorder.EndOp(inner);
  recorder.EndOp(outer);
  recorder.EndOp(recorder.BeginOp("MmBackward0", OpScope::kBackward, 1, 2, 1, 0));
  recorder.Stop();
  Timeline counted;
  recorder.CollectInto(counted);
  ASSERT_EQ(counted.ops.size(), 3u);
  EXPECT_GE(counted.CountsOf(0).page_faults, 512)
      << "the top-level op holds its nested op's faults";
  EXPECT_EQ(counted.CountsOf(1).page_faults, -1) << "nested ops are not counted";
  EXPECT_GE(counted.CountsOf(2).page_faults, 0);
  EXPECT_LT(counted.CountsOf(2).page_faults, 512);

  recorder.Start();  // not asked
  const auto plain = recorder.BeginOp("ReluBackward0", OpScope::kBackward, 1, 3, 1, 0);
  TouchFreshPages(std::size_t{1} << 20);
  recorder.EndOp(plain);
  recorder.Stop();
  Timeline uncounted;
  recorder.CollectInto(uncounted);
  ASSERT_EQ(uncounted.ops.size(), 1u);
  EXPECT_EQ(uncounted.CountsOf(0).page_faults, -1);
}

TEST(PageFaults, OneCostsBetweenANanosecondAndAMillisecond) {
  const double ns = PageFaultNs();
  EXPECT_GT(ns, 1.0);
  EXPECT_LT(ns, 1e6);
  EXPECT_EQ(PageFaultNs(), ns) << "measured once per process";
  EXPECT_GE(ThreadMinorFaults(), 0);
}

}  // namespace
}  // namespace advisor
