#include "engine/bisect/host_loop.h"

#include <gtest/gtest.h>

#include <string>

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
  EXPECT_DOUBLE_EQ(HostLoopCost(ops, false), 3.1);
}

TEST(HostLoopCost, LeavesOutFewRunsAndLargeRuns) {
  // A ViT's 48 linears a step are no loop; a decoder's 96 matmuls of 0.2 ms each do work.
  const std::vector<OpCost> ops = {Op("aten::linear", 48, 0.5), Op("aten::matmul", 96, 19.2)};
  EXPECT_DOUBLE_EQ(HostLoopCost(ops, false), 0);
  // At the boundary: 64 runs of 50 us each.
  EXPECT_DOUBLE_EQ(HostLoopCost({Op("aten::add", 64, 3.2)}, false), 3.2);
}

TEST(HostLoopCost, IsInTheUnitsTheLevelRanksBy) {
  EXPECT_DOUBLE_EQ(HostLoopCost({Op("aten::mean", 512, 3.0, 0.4)}, true), 0.4);
}

}  // namespace
}  // namespace advisor
