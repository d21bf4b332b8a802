#include "engine/gpu/op_lookup.h"

#include <gtest/gtest.h>

#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor {
namespace {

using testing::Op;
using testing::Placed;
using testing::SetOps;

TEST(OpLookup, AnExternalIdNamesTheInnermostOpCarryingIt) {
  Timeline timeline;
  SetOps(timeline, {Op("aten::linear", 0, 100, 5, 0), Op("aten::addmm", 10, 90, 5, 1),
                    Op("aten::relu", 100, 150, 6, 0)});
  const OpLookup lookup(timeline);
  EXPECT_EQ(lookup.LaunchingOp(5), 1);
  EXPECT_EQ(lookup.LaunchingOp(6), 2);
  EXPECT_EQ(lookup.LaunchingOp(0), -1);
  EXPECT_EQ(lookup.LaunchingOp(99), -1);
}

// A trace numbers its ops' ids in order (each op's index + 1): an id is found among them, the
// ids no op carries and the ops that carry none (0) aside.
TEST(LaunchingOps, AscendingIdsAreFoundWithoutATable) {
  Timeline timeline;
  SetOps(timeline, {Op("aten::linear", 0, 100, 1, 0), Op("aten::addmm", 10, 90, 2, 1),
                    Op("aten::relu", 100, 150, 3, 0), Op("aten::mm", 200, 300, 7, 0)});
  const LaunchingOps launching(timeline);
  EXPECT_EQ(launching.Of(1), 0);
  EXPECT_EQ(launching.Of(2), 1);
  EXPECT_EQ(launching.Of(3), 2);
  EXPECT_EQ(launching.Of(7), 3) << "past a gap in the ids";
  EXPECT_EQ(launching.Of(5), -1);
  EXPECT_EQ(launching.Of(8), -1);
  EXPECT_EQ(launching.Of(0), -1);

  SetOps(timeline, {Op("aten::copy_", 0, 10, 0, 0), Op("aten::mm", 20, 30, 4, 0),
                    Op("aten::add", 40, 50, 9, 0)});
  const LaunchingOps after_an_op_without_one(timeline);
  EXPECT_EQ(after_an_op_without_one.Of(4), 1);
  EXPECT_EQ(after_an_op_without_one.Of(9), 2);
  EXPECT_EQ(after_an_op_without_one.Of(0), -1);
}

TEST(LaunchingOps, AnIdCarriedTwiceNamesTheInnermostOp) {
  Timeline timeline;
  SetOps(timeline, {Op("aten::linear", 0, 100, 5, 0), Op("aten::addmm", 10, 90, 5, 1),
                    Op("aten::relu", 100, 150, 4, 0)});
  const LaunchingOps launching(timeline);
  EXPECT_EQ(launching.Of(5), 1);
  EXPECT_EQ(launching.Of(4), 2) << "an id smaller than the one before";
  EXPECT_EQ(launching.Of(6), -1);
}

TEST(OpLookup, TheCallingOpIsTheOutermostAtenOpOrAutogradNode) {
  Timeline timeline;
  SetOps(timeline, {Op("aten::item", 0, 100, 1, 0), Op("aten::_local_scalar_dense", 5, 95, 2, 1),
                    Op("Optimizer.step#SGD.step", 200, 400, 3, 0, 1, OpScope::kUser),
                    Op("aten::_foreach_add_", 210, 300, 4, 1),
                    Op("GatherBackward0", 500, 600, 5, 0, 2, OpScope::kBackward),
                    Op("aten::scatter_add_", 510, 590, 6, 1, 2)});
  const OpLookup lookup(timeline);
  EXPECT_EQ(lookup.CallingOp(1), 0) << "aten::item made the copy";
  EXPECT_EQ(lookup.CallingOp(0), 0);
  EXPECT_EQ(lookup.CallingOp(3), 3) << "a user scope is not a model call";
  EXPECT_EQ(lookup.CallingOp(2), 2);
  EXPECT_EQ(lookup.CallingOp(5), 4);
}

TEST(OpLookup, OpsOnOtherThreadsDoNotNest) {
  Timeline timeline;
  SetOps(timeline,
         {Op("aten::mm", 0, 100, 1, 0, /*thread=*/1), Op("aten::add", 10, 20, 2, 0, /*thread=*/2)});
  const OpLookup lookup(timeline);
  EXPECT_EQ(lookup.CallingOp(1), 1);
}

TEST(OpLookup, OriginNamesStepPhaseModuleAndCallingOp) {
  Timeline timeline;
  SetOps(timeline, {Op("aten::item", 0, 100, 1, 0), Op("aten::_local_scalar_dense", 5, 95, 2, 1)});
  const OpPlacements placements = {Placed(0, Phase::kForward, "head"),
                                   Placed(0, Phase::kForward, "head.fc")};
  const OpLookup lookup(timeline);
  const auto origin = OriginOf(2, lookup, timeline, placements);
  ASSERT_TRUE(origin);
  EXPECT_EQ(origin->step, 0);
  EXPECT_EQ(origin->phase, Phase::kForward);
  EXPECT_EQ(origin->module, "head.fc") << "the launching op's module";
  EXPECT_EQ(origin->op, "aten::item");
  EXPECT_FALSE(OriginOf(42, lookup, timeline, placements));
}

}  // namespace
}  // namespace advisor
