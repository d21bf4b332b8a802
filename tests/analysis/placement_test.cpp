#include "engine/analysis/placement.h"

#include <gtest/gtest.h>

#include "tests/allocated_bytes.h"
#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::TimelineBuilder;

TEST(OpPlacements, AModuleIsHeldOnceAndItsOpsNameItByIndex) {
  const OpPlacement placed;
  OpPlacements placements = {
      {placed, "encoder"}, {placed, "encoder.layer"}, {placed, "encoder"}, {placed, ""}};
  EXPECT_EQ(placements[0].module, placements[2].module);
  EXPECT_NE(placements[0].module, placements[1].module);
  EXPECT_EQ(placements[3].module, OpPlacements::kNoModule) << "outside every module";
  EXPECT_EQ(placements.ModuleOf(2), "encoder");
  EXPECT_EQ(placements.ModuleOf(3), "");
  EXPECT_EQ(placements.IndexOf("encoder.layer"), placements[1].module);
}

TEST(PlaceOps, AssignsStepPhaseAndInnermostModule) {
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Forward("encoder", 1, 8)
      .Forward("encoder.layer", 2, 5)
      .Op("aten::linear", 2.5, 4.5)
      .Op("aten::t", 2.6, 2.7)  // nested in aten::linear
      .Op("aten::relu", 6, 7)
      .Op("aten::cross_entropy", 9, 9.5)
      .Op("aten::add_", 35, 36);
  const Timeline& timeline = b.Build();
  const OpPlacements placements = PlaceOps(timeline);

  ASSERT_EQ(placements.size(), 5u);
  EXPECT_EQ(placements.ModuleOf(0), "encoder.layer");
  EXPECT_EQ(placements[0].phase, Phase::kForward);
  EXPECT_EQ(placements[0].step, 0);
  EXPECT_EQ(placements[0].top_level, 0);
  EXPECT_EQ(placements.ModuleOf(1), "encoder.layer");
  EXPECT_EQ(placements[1].top_level, 0) << "aten::t runs inside aten::linear";
  EXPECT_EQ(placements.ModuleOf(2), "encoder");
  EXPECT_EQ(placements.ModuleOf(3), "") << "the loss runs outside every module";
  EXPECT_EQ(placements[4].phase, Phase::kOptimizer);
}

// Each op's placement copied its module's path: 1,000 ops in a module 128 levels of 500-byte
// names deep allocated 64 MB (a trace's ranges make such paths: 10,000 ops took 1.5 GB).
TEST(PlaceOps, OpsShareTheirModulesPathHoweverLongItIs) {
  TimelineBuilder b;
  b.Step(0, 100, 200, 300);
  std::string path;
  for (int level = 0; level < 128; ++level) {
    path += (level > 0 ? "." : "") + std::string(500, static_cast<char>('a' + level % 26));
  }
  b.Forward(path, 1, 99);
  for (int i = 0; i < 1000; ++i) b.Op("aten::add", 2 + i * 0.09, 2 + i * 0.09 + 0.05);
  const Timeline& timeline = b.Build();
  const std::size_t before = testing::AllocatedBytes();
  const OpPlacements placements = PlaceOps(timeline);
  const std::size_t allocated = testing::AllocatedBytes() - before;
  EXPECT_LT(allocated, 1u << 20) << "bytes allocated to place 1,000 ops";
  ASSERT_EQ(placements.size(), 1000u);
  EXPECT_EQ(placements.ModuleOf(placements.size() - 1), timeline.markers.front().path);
  EXPECT_EQ(placements.ModuleOf(placements.size() - 1).Size(), path.size());
}

TEST(PlaceOps, GradientAccumulationAlternatesPhasesWithinOneStep) {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kData, 2},
                  {Phase::kForward, 10},
                  {Phase::kBackward, 20},
                  {Phase::kData, 22},
                  {Phase::kForward, 30},
                  {Phase::kBackward, 40},
                  {Phase::kOptimizer, 45}})
      .Op("aten::linear", 5, 6)
      .Op("AddmmBackward0", 15, 16, 1, OpScope::kBackward)
      .Op("aten::copy_", 21, 21.5)
      .Op("aten::linear", 25, 26)
      .Op("AddmmBackward0", 35, 36, 1, OpScope::kBackward)
      .Op("aten::add_", 42, 43);
  const OpPlacements placements = PlaceOps(b.Build());
  const Phase expected[] = {Phase::kForward, Phase::kBackward, Phase::kData,
                            Phase::kForward, Phase::kBackward, Phase::kOptimizer};
  for (std::size_t i = 0; i < placements.size(); ++i) {
    EXPECT_EQ(placements[i].phase, expected[i]) << "op " << i;
    EXPECT_EQ(placements[i].step, 0) << "one step: one optimizer step";
  }
}

TEST(PlaceOps, AnOpThatRunsWholeModulesLeavesTheirOpsToThem) {
  // Activation checkpointing: the layer runs inside the CheckpointFunction op, in forward and
  // again (recomputed) inside its backward node.
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Op("CheckpointFunction", 1, 9)
      .Forward("layer", 2, 8)
      .Op("aten::linear", 3, 7)
      .Op("CheckpointFunctionBackward", 12, 28, 1, OpScope::kBackward)
      .Forward("layer", 13, 18)
      .Op("aten::linear", 14, 17)
      .Backward("layer", 19, 27)
      .Op("AddmmBackward0", 20, 26, 1, OpScope::kBackward);
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements[0].top_level, -1) << "the checkpoint's cost is its layer's";
  EXPECT_EQ(placements[1].top_level, 1);
  EXPECT_EQ(placements.ModuleOf(1), "layer");
  EXPECT_EQ(placements[1].parent, 0) << "still nested in the checkpoint op";
  EXPECT_EQ(placements[2].top_level, -1);
  EXPECT_EQ(placements[3].top_level, 3);
  EXPECT_EQ(placements.ModuleOf(3), "layer");
  EXPECT_EQ(placements[3].phase, Phase::kBackward) << "the recompute is backward work";
  EXPECT_EQ(placements[4].top_level, 4);
  EXPECT_EQ(placements.ModuleOf(4), "layer");
}

TEST(PlaceOps, BackwardIntervalsArePerThread) {
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Backward("head", 11, 15, /*thread=*/2)
      .Op("AddmmBackward0", 12, 14, 2, OpScope::kBackward)
      .Op("aten::mul", 12.5, 13, /*thread=*/1);  // same time, another thread, outside
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements.ModuleOf(0), "head");
  EXPECT_EQ(placements[0].phase, Phase::kBackward);
  EXPECT_EQ(placements.ModuleOf(1), "");
}

TEST(PlaceOps, ModuleWithoutBackwardEndClosesAtTheNextNonDescendant) {
  // "stem" takes the model input, which needs no gradient: no kBackwardEnd ever comes.
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Backward("body", 11, 20)
      .Op("MmBackward0", 12, 19, 1, OpScope::kBackward)
      .Mark("stem", MarkerKind::kBackwardBegin, 21)
      .Mark("stem.conv", MarkerKind::kBackwardBegin, 21.5)
      .Op("ConvolutionBackward0", 22, 25, 1, OpScope::kBackward)
      .Mark("other", MarkerKind::kBackwardBegin, 26)
      .Op("AddBackward0", 27, 28, 1, OpScope::kBackward)
      .Mark("other", MarkerKind::kBackwardEnd, 29)
      .Mark("tail", MarkerKind::kBackwardEnd, 29.5);  // unmatched: ignored
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements.ModuleOf(0), "body");
  EXPECT_EQ(placements.ModuleOf(1), "stem.conv");
  EXPECT_EQ(placements.ModuleOf(2), "other") << "stem's interval ended where other's began";
}

TEST(PlaceOps, AnIntervalWithoutBackwardEndEndsBeforeTheFirstNodeMadeOutsideIt) {
  // recsys_train's level 2 under "items": items.emb is fed integer ids, so no kBackwardEnd comes,
  // and the users tower, not instrumented at this level, runs its backward after it unmarked.
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Forward("items.emb", 1, 3)
      .Op("aten::embedding", 1.5, 2.5, 1, OpScope::kForward, 5)
      .Op("aten::mean", 4, 5, 1, OpScope::kForward, 3)  // the users tower's, outside "items"
      .Mark("items.emb", MarkerKind::kBackwardBegin, 11)
      .Op("EmbeddingBackward0", 12, 14, 1, OpScope::kBackward, 5, 1)
      .Op("torch::autograd::AccumulateGrad", 14.5, 15, 1, OpScope::kBackward)
      .Op("MeanBackward1", 16, 27, 1, OpScope::kBackward, 3, 1)
      .Op("aten::add", 27.5, 28);  // summing two gradients, after the users' node
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements.ModuleOf(2), "items.emb");
  EXPECT_EQ(placements.ModuleOf(3), "items.emb") << "a node without a forward op stays where it is";
  EXPECT_EQ(placements.ModuleOf(4), "") << "the users tower's node is no part of items.emb";
  EXPECT_EQ(placements.ModuleOf(5), "");
}

TEST(PlaceOps, IntervalsDoNotCrossPhasesOrSteps) {
  // A forward exit lost to an error would otherwise swallow the rest of the window.
  TimelineBuilder b;
  b.Step(0, 10, 20, 30)
      .Mark("a", MarkerKind::kForwardEnter, 1)
      .Op("aten::mm", 2, 3)
      .Op("MmBackward0", 12, 13, 1, OpScope::kBackward)
      .Step(31, 40, 50, 60)
      .Op("aten::mm", 32, 33)
      .Op("aten::zero_", 61, 62);  // after the last step
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements.ModuleOf(0), "a");
  EXPECT_EQ(placements.ModuleOf(1), "");
  EXPECT_EQ(placements[2].step, 1);
  EXPECT_EQ(placements.ModuleOf(2), "");
  EXPECT_EQ(placements[3].step, -1);
  EXPECT_EQ(placements[3].phase, Phase::kOutside);
}

TEST(PlaceOps, RepeatedCallsOfOneInstanceEachGetTheirInterval) {
  TimelineBuilder b;
  b.Step(0, 10, 20, 30)
      .Forward("shared", 1, 2)
      .Op("aten::mm", 1.2, 1.8)
      .Op("aten::add", 2.5, 2.8)
      .Forward("shared", 3, 4)
      .Op("aten::mm", 3.2, 3.8);
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements.ModuleOf(0), "shared");
  EXPECT_EQ(placements.ModuleOf(1), "");
  EXPECT_EQ(placements.ModuleOf(2), "shared");
}

TEST(PlaceOps, OpsWhileTheStepWaitsForItsBatchAreInTheDataPhase) {
  // The input stage prepares the batch on the step's thread (0 workers) before forward starts.
  TimelineBuilder b;
  b.StepWithData(0, 12, 20, 30, 40)
      .Op("aten::flip", 1, 5)
      .Op("aten::to", 10, 11.9)
      .Forward("encoder", 12.5, 18)
      .Op("aten::linear", 13, 17)
      .Step(41, 50, 60, 70)  // a step without a data phase: forward starts it
      .Op("aten::linear", 41.5, 45);
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements[0].phase, Phase::kData);
  EXPECT_EQ(placements[0].step, 0);
  EXPECT_EQ(placements.ModuleOf(0), "");
  EXPECT_EQ(placements[1].phase, Phase::kData) << "the copy to the device is part of the wait";
  EXPECT_EQ(placements[2].phase, Phase::kForward);
  EXPECT_EQ(placements.ModuleOf(2), "encoder");
  EXPECT_EQ(placements[3].phase, Phase::kForward);
  EXPECT_EQ(placements[3].step, 1);
  EXPECT_STREQ(PhaseName(Phase::kData), "data");
}

// A script's loss outside the model: its ops, the backward nodes they made and the gradient sums
// the autograd engine runs after those nodes are the loss's; the model's nodes and the parameters'
// AccumulateGrad stay the backward's.
TEST(PlaceOps, TheLossesBackwardNodesAreTheLosses) {
  TimelineBuilder b;
  b.Stretches(
       0,
       {{Phase::kForward, 10}, {Phase::kLoss, 20}, {Phase::kBackward, 40}, {Phase::kOptimizer, 45}})
      .Forward("encoder", 1, 9)
      .Op("aten::linear", 2, 8, 1, OpScope::kForward, 7)
      .Op("aten::max", 11, 14, 1, OpScope::kForward, 8)
      .Op("aten::mean", 15, 18, 1, OpScope::kForward, 9)
      .Op("MeanBackward0", 21, 23, 1, OpScope::kBackward, 9, 1)
      .Op("MaxBackward1", 24, 27, 1, OpScope::kBackward, 8, 1)
      .Op("aten::zeros", 24.5, 25)  // inside MaxBackward1
      .Op("aten::add", 27.5, 28)    // summing two gradients of one tensor
      .Backward("encoder", 29, 38)
      .Op("AddmmBackward0", 30, 35, 1, OpScope::kBackward, 7, 1)
      .Op("torch::autograd::AccumulateGrad", 36, 37, 1, OpScope::kBackward)
      .Op("aten::add_", 41, 42);
  const OpPlacements placements = PlaceOps(b.Build());
  const Phase expected[] = {Phase::kForward,  Phase::kLoss,     Phase::kLoss, Phase::kLoss,
                            Phase::kLoss,     Phase::kLoss,     Phase::kLoss, Phase::kBackward,
                            Phase::kBackward, Phase::kOptimizer};
  for (std::size_t i = 0; i < placements.size(); ++i) {
    EXPECT_EQ(placements[i].phase, expected[i]) << "op " << i;
  }
  EXPECT_EQ(placements.ModuleOf(7), "encoder");
}

// A model.pt's loss is its forward's: no loss stretch, no backward node moves.
TEST(PlaceOps, WithoutALossStretchTheBackwardKeepsItsNodes) {
  TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Op("aten::max", 5, 6, 1, OpScope::kForward, 8)
      .Op("MaxBackward1", 12, 14, 1, OpScope::kBackward, 8, 1);
  const OpPlacements placements = PlaceOps(b.Build());
  EXPECT_EQ(placements[1].phase, Phase::kBackward);
}

}  // namespace
}  // namespace advisor
