// The op probe's counts live beside the ops (Timeline::CountsOf): an op without any reads as
// uncounted, and dropping ops keeps each count with its op.
#include <gtest/gtest.h>

#include "engine/timeline/timeline.h"

namespace advisor {
namespace {

Timeline FourOps() {
  Timeline timeline;
  for (const char* name : {"aten::add", "gloo:all_reduce", "aten::mul", "aten::div"}) {
    OpEvent op;
    op.name = name;
    timeline.ops.push_back(op);
  }
  return timeline;
}

TEST(OpCounts, AnOpWithoutCountsReadsAsUncounted) {
  Timeline timeline = FourOps();
  timeline.SetCounts(3, {});  // nothing counted: nothing stored
  EXPECT_TRUE(timeline.op_counts.empty());
  timeline.SetCounts(1, {7, 8, 9});
  EXPECT_EQ(timeline.CountsOf(1).page_faults, 7);
  EXPECT_EQ(timeline.CountsOf(1).broadcast_elements, 9);
  EXPECT_FALSE(timeline.CountsOf(0).Counted());
  EXPECT_FALSE(timeline.CountsOf(3).Counted());
}

TEST(OpCounts, DroppingOpsKeepsEachCountWithItsOp) {
  Timeline timeline = FourOps();
  timeline.ops.pop_back();
  timeline.SetCounts(0, {1, -1, -1});
  timeline.SetCounts(2, {3, -1, -1});
  OpEvent past;  // added after the counts: past their end
  past.name = "aten::div";
  timeline.ops.push_back(past);
  timeline.RemoveOpsIf([](const OpEvent& op) { return op.name == "gloo:all_reduce"; });
  ASSERT_EQ(timeline.ops.size(), 3u);
  EXPECT_EQ(timeline.ops[1].name, "aten::mul");
  EXPECT_EQ(timeline.CountsOf(0).page_faults, 1);
  EXPECT_EQ(timeline.CountsOf(1).page_faults, 3);
  EXPECT_EQ(timeline.ops[2].name, "aten::div");
  EXPECT_FALSE(timeline.CountsOf(2).Counted()) << "aten::div was never counted";
}

}  // namespace
}  // namespace advisor
