#include "probes/ops/event_recorder.h"

#include <gtest/gtest.h>

#include <thread>

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
  EXPECT_EQ(timeline.ops[2].forward_thread, 1u);
  ASSERT_EQ(timeline.markers.size(), 1u);
  EXPECT_EQ(timeline.markers[0].path, "head");

  Timeline again;
  recorder.CollectInto(again);
  EXPECT_TRUE(again.ops.empty()) << "collection moves events out";
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

}  // namespace
}  // namespace advisor
