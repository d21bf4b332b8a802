#include "engine/analysis/sequence_numbers.h"

#include <gtest/gtest.h>

#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::TimelineBuilder;

// Forward on thread 1, backward on the autograd thread 2 (as on CUDA).
Timeline TwoModules() {
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Forward("proj", 1, 4)
      .Op("aten::linear", 1.5, 3.5, 1, OpScope::kForward, 7)
      .Op("aten::addmm", 2, 3, 1, OpScope::kForward, 7)  // same number, started later
      .Forward("drop", 5, 8)
      .Op("aten::gather", 5.5, 7, 1, OpScope::kForward, 8)
      .Backward("drop", 11, 15, 2)
      .Op("GatherBackward0", 12, 14, 2, OpScope::kBackward, 8, 1)
      .Backward("proj", 16, 20, 2)
      .Op("AddmmBackward0", 17, 19, 2, OpScope::kBackward, 7, 1)
      .Op("AccumulateGrad", 19.2, 19.5, 2, OpScope::kBackward, -1, 1)
      .Op("MulBackward0", 21, 22, 2, OpScope::kBackward, 99, 1);  // no forward op in the window
  return b.Build();
}

TEST(ForwardOpOf, NamesTheOutermostForwardOpWithTheSameSequenceNumber) {
  const Timeline timeline = TwoModules();
  const OpPlacements placements = PlaceOps(timeline);
  EXPECT_EQ(ForwardOpOf(timeline, placements, 3), "aten::gather");
  EXPECT_EQ(ForwardOpOf(timeline, placements, 4), "aten::linear")
      << "AddmmBackward0 was made by aten::addmm, which aten::linear called";
  EXPECT_EQ(ForwardOpOf(timeline, placements, 6), "");
}

// A mixer whose forward makes MulBackward0 nodes twice: its product over a large tensor (seq 2) and
// its dropout's mask (aten::mul inside aten::dropout, seq 5), which runs last in the forward and so
// first in the backward.
TEST(CostliestForwardOpOf, NamesTheForwardOpWhoseNodesCostMostNotTheFirstNode) {
  TimelineBuilder b;
  b.Step(0, 20, 90, 95)
      .Forward("mixer", 1, 19)
      .Op("aten::mul", 2, 12, 1, OpScope::kForward, 2)
      .Op("aten::dropout", 13, 16, 1, OpScope::kForward, 5)
      .Op("aten::mul", 14, 15, 1, OpScope::kForward, 5)
      .Forward("head", 17, 18.5)
      .Op("aten::mul", 17.5, 18, 1, OpScope::kForward, 7)
      .Backward("head", 21, 60)
      .Op("MulBackward0", 22, 59, 1, OpScope::kBackward, 7, 1)  // another module's, costliest
      .Backward("mixer", 61, 89)
      .Op("MulBackward0", 62, 64, 1, OpScope::kBackward, 5, 1)
      .Op("MulBackward0", 65, 88, 1, OpScope::kBackward, 2, 1);
  const Timeline timeline = b.Build();
  const OpPlacements placements = PlaceOps(timeline);
  EXPECT_EQ(ForwardOpOf(timeline, placements, 5), "aten::dropout")
      << "the first node in the mixer's backward is the dropout's";
  EXPECT_EQ(CostliestForwardOpOf(timeline, placements, "MulBackward0", ModulePath("mixer")),
            "aten::mul");
  EXPECT_EQ(CostliestForwardOpOf(timeline, placements, "AddBackward0", ModulePath("mixer")), "");
  EXPECT_EQ(CostliestForwardOpOf(timeline, placements, "MulBackward0", ModulePath("ff")), "");
}

TEST(CheckAgainstSequenceNumbers, CountsAgreementAndNodesWithoutAForwardOp) {
  const Timeline timeline = TwoModules();
  const CrossCheck check = CheckAgainstSequenceNumbers(timeline, PlaceOps(timeline));
  EXPECT_EQ(check.backward_ops_checked, 2) << "AccumulateGrad has no sequence number";
  EXPECT_EQ(check.backward_ops_agreeing, 2);
  EXPECT_EQ(check.backward_ops_without_forward, 1);
}

TEST(CheckAgainstSequenceNumbers, ReportsAMarkerIntervalThatSwallowedAnotherModulesNode) {
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Forward("a", 1, 3)
      .Op("aten::mm", 1.5, 2.5, 1, OpScope::kForward, 3)
      .Backward("b", 11, 20)  // a's node ran inside b's interval
      .Op("MmBackward0", 12, 14, 1, OpScope::kBackward, 3, 1);
  const Timeline timeline = b.Build();
  const CrossCheck check = CheckAgainstSequenceNumbers(timeline, PlaceOps(timeline));
  EXPECT_EQ(check.backward_ops_checked, 1);
  EXPECT_EQ(check.backward_ops_agreeing, 0);
}

TEST(BackwardMarkersFromSequenceNumbers, GiveBackwardNodesTheModulesOfTheirForwardOps) {
  // As a trace has it: forward markers only, the backward on the autograd thread.
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Forward("proj", 1, 4)
      .Op("aten::addmm", 2, 3, 1, OpScope::kForward, 7)
      .Forward("drop", 5, 8)
      .Op("aten::gather", 5.5, 7, 1, OpScope::kForward, 8)
      .Op("aten::mul", 9, 9.5, 1, OpScope::kForward, 9)  // outside every module
      .Op("GatherBackward0", 12, 14, 2, OpScope::kBackward, 8, 1)
      .Op("aten::scatter_add_", 12.5, 13.5, 2)
      .Op("AddmmBackward0", 17, 19, 2, OpScope::kBackward, 7, 1)
      .Op("MulBackward0", 20, 21, 2, OpScope::kBackward, 9, 1)
      .Op("AccumulateGrad", 22, 23, 2, OpScope::kBackward, -1, 1);
  Timeline timeline = b.Build();
  const std::vector<MarkerEvent> markers =
      BackwardMarkersFromSequenceNumbers(timeline, PlaceOps(timeline));
  ASSERT_EQ(markers.size(), 4u) << "none for the mul outside modules or for AccumulateGrad";
  EXPECT_EQ(markers[0].path, "drop");
  EXPECT_EQ(markers[0].kind, MarkerKind::kBackwardBegin);
  EXPECT_EQ(markers[0].thread, 2u);
  EXPECT_EQ(markers[0].time_ns, testing::Ms(12));
  EXPECT_EQ(markers[1].kind, MarkerKind::kBackwardEnd);
  EXPECT_EQ(markers[1].time_ns, testing::Ms(14));
  EXPECT_EQ(markers[2].path, "proj");

  timeline.markers.insert(timeline.markers.end(), markers.begin(), markers.end());
  const OpPlacements placed = PlaceOps(timeline);
  EXPECT_EQ(placed.ModuleOf(4), "drop") << "the scatter inside GatherBackward0";
  EXPECT_EQ(placed.ModuleOf(5), "proj");
  EXPECT_EQ(placed.ModuleOf(6), "");
  EXPECT_EQ(CheckAgainstSequenceNumbers(timeline, placed).backward_ops_agreeing, 3);
}

}  // namespace
}  // namespace advisor
