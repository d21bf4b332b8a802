#include "engine/bisect/host_loop.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/analysis/view_ops.h"

namespace advisor {
namespace {

OpCost Op(const std::string& name, double calls, double host_ms, double gpu_ms = 0) {
  OpCost op;
  op.name = name;
  op.phase = name.rfind("aten::", 0) == 0 ? Phase::kForward : Phase::kBackward;
  op.calls = calls;
  op.cost.host_ms = host_ms;
  op.cost.gpu_ms = gpu_ms;
  return op;
}

TEST(HostLoopCost, CountsManySmallRunsOfOneForwardOp) {
  // recsys_train.py's history: a mean per user (512 a step), beside the tower's few large ops.
  // Its backward nodes go with the loop, but are not told from a node run once per parameter.
  const std::vector<OpCost> ops = {Op("aten::mean", 512, 3.1), Op("MeanBackward1", 512, 4.6),
                                   Op("aten::addmm", 2, 6.0), Op("AddmmBackward0", 2, 9.0),
                                   Op("AccumulateGrad", 144, 0.7)};
  EXPECT_DOUBLE_EQ(HostLoopCost(ops, false, kSmallOpMs), 3.1);
}

TEST(HostLoopCost, LeavesOutFewRunsAndLargeRuns) {
  // A ViT's 48 linears a step are no loop; a decoder's 96 matmuls of 0.2 ms each do work.
  const std::vector<OpCost> ops = {Op("aten::linear", 48, 0.5), Op("aten::matmul", 96, 19.2)};
  EXPECT_DOUBLE_EQ(HostLoopCost(ops, false, kSmallOpMs), 0);
  // At the boundary: 64 runs of 50 us each.
  EXPECT_DOUBLE_EQ(HostLoopCost({Op("aten::add", 64, 3.2)}, false, kSmallOpMs), 3.2);
}

TEST(HostLoopCost, IsInTheUnitsTheLevelRanksBy) {
  EXPECT_DOUBLE_EQ(HostLoopCost({Op("aten::mean", 512, 3.0, 0.4)}, true, kSmallOpMs), 0.4);
}

// bench/user_trial/lightning_docs.py under load: RollingStats' 113 aten::std a step at 68 us each,
// beside its slices at 2.5 us. The fixed 50 us limit left the loop's heaviest op out; 50 slices'
// time takes it in, and still leaves out a decoder's matmuls of 0.2 ms at the same load.
TEST(HostLoopCost, ASmallOpIsOneOfAFewViewOpsTimeInTheSameWindow) {
  // The views: 113 slices of 2.5 us, 8 views of 1.5 us and 2 narrows of 15 us (faulting in pages).
  const std::vector<OpCost> window = {Op("aten::slice", 113, 0.2825), Op("aten::std", 113, 7.684),
                                      Op("aten::view", 8, 0.012), Op("aten::narrow", 2, 0.03),
                                      Op("aten::conv1d", 3, 3.1)};
  const std::optional<double> view_op_ms = ViewOpMs(window);
  ASSERT_TRUE(view_op_ms.has_value());
  EXPECT_NEAR(*view_op_ms, 0.0025, 1e-12) << "the median call's: a slice";
  const double small_op_ms = SmallOpMs(view_op_ms);
  EXPECT_NEAR(small_op_ms, 0.125, 1e-12);
  EXPECT_DOUBLE_EQ(HostLoopCost({Op("aten::std", 113, 7.684)}, false, small_op_ms), 7.684);
  EXPECT_DOUBLE_EQ(HostLoopCost({Op("aten::std", 113, 7.684)}, false, kSmallOpMs), 0)
      << "over the fixed limit";
  EXPECT_DOUBLE_EQ(HostLoopCost({Op("aten::matmul", 96, 19.2)}, false, small_op_ms), 0);
}

TEST(HostLoopCost, WithoutAViewOpTheSmallOpIsTheFixedLimit) {
  EXPECT_FALSE(ViewOpMs({Op("aten::std", 113, 7.684), Op("MeanBackward1", 512, 4.6)}));
  EXPECT_DOUBLE_EQ(SmallOpMs(std::nullopt), kSmallOpMs);
}

}  // namespace
}  // namespace advisor
