// The op probe's counts and autograd's numbers live beside the ops (Timeline::CountsOf,
// SequenceOf): an op without any reads as uncounted or unnumbered, and dropping ops keeps each
// count and number with its op.
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

TEST(OpSequence, AnOpWithoutANumberReadsAsUnnumbered) {
  Timeline timeline = FourOps();
  timeline.SetSequence(2, {});  // no number: nothing stored
  EXPECT_TRUE(timeline.op_sequences.empty());
  timeline.SetSequence(2, {42, 7});
  EXPECT_EQ(timeline.op_sequences.size(), 4u) << "one entry an op once any is numbered";
  EXPECT_EQ(timeline.SequenceOf(2).seq_nr, 42);
  EXPECT_EQ(timeline.SequenceOf(2).forward_thread, 7u);
  EXPECT_EQ(timeline.SequenceOf(0).seq_nr, -1);
  EXPECT_FALSE(timeline.SequenceOf(3).Numbered());
  EXPECT_FALSE(timeline.SequenceOf(9).Numbered()) << "past the ops";
}

TEST(OpSequence, DroppingOpsKeepsEachNumberAndCountWithItsOp) {
  Timeline timeline = FourOps();
  timeline.SetSequence(1, {5, 0});
  timeline.SetSequence(2, {6, 0});
  timeline.SetCounts(3, {9, -1, -1});
  timeline.RemoveOpsIf([](const OpEvent& op) { return op.name == "gloo:all_reduce"; });
  ASSERT_EQ(timeline.ops.size(), 3u);
  EXPECT_EQ(timeline.op_sequences.size(), 3u);
  EXPECT_EQ(timeline.ops[1].name, "aten::mul");
  EXPECT_EQ(timeline.SequenceOf(1).seq_nr, 6);
  EXPECT_FALSE(timeline.SequenceOf(0).Numbered());
  EXPECT_FALSE(timeline.SequenceOf(2).Numbered());
  EXPECT_EQ(timeline.CountsOf(2).page_faults, 9);
}

}  // namespace
}  // namespace advisor
