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
  const std::vector<OpPlacement> placements = PlaceOps(timeline);
  EXPECT_EQ(ForwardOpOf(timeline, placements, 3), "aten::gather");
  EXPECT_EQ(ForwardOpOf(timeline, placements, 4), "aten::linear")
      << "AddmmBackward0 was made by aten::addmm, which aten::linear called";
  EXPECT_EQ(ForwardOpOf(timeline, placements, 6), "");
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

}  // namespace
}  // namespace advisor
