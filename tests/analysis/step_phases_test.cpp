#include "engine/analysis/step_phases.h"

#include <gtest/gtest.h>

#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::TimelineBuilder;

TEST(PhasesOfMedianStep, TheDataPhaseIsItsOwnAndForwardStartsAfterIt) {
  TimelineBuilder b;
  b.StepWithData(0, 4, 10, 30, 40)           // 40 ms
      .StepWithData(100, 108, 114, 134, 144)  // 44 ms
      .StepWithData(200, 206, 212, 232, 242);  // 42 ms: the median step
  const StepPhases phases = PhasesOfMedianStep(b.Build().steps);
  EXPECT_NEAR(phases.step_ms, 42.0, 1e-9);
  EXPECT_NEAR(phases.data_ms, 6.0, 1e-9);
  EXPECT_NEAR(phases.forward_ms, 6.0, 1e-9);
  EXPECT_NEAR(phases.backward_ms, 20.0, 1e-9);
  EXPECT_NEAR(phases.optimizer_ms, 10.0, 1e-9);
  EXPECT_NEAR(phases.rest_ms, 0.0, 1e-9);
}

TEST(PhasesOfMedianStep, StepsWithoutADataPhaseStartWithForward) {
  TimelineBuilder b;
  b.Step(50, 60, 80, 90).Step(100, 112, 130, 141);  // 40 and 41 ms: the lower middle
  const StepPhases phases = PhasesOfMedianStep(b.Build().steps);
  EXPECT_EQ(phases.data_ms, 0.0) << "a step without a data stretch waited for nothing";
  EXPECT_NEAR(phases.forward_ms, 10.0, 1e-9);
  EXPECT_NEAR(phases.backward_ms, 20.0, 1e-9);
  EXPECT_NEAR(phases.optimizer_ms, 10.0, 1e-9);
}

TEST(PhasesOfMedianStep, EachPhaseSumsItsStretchesWithinAStep) {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kData, 2}, {Phase::kForward, 10}, {Phase::kBackward, 20},
                  {Phase::kData, 23}, {Phase::kForward, 30}, {Phase::kBackward, 40},
                  {Phase::kOptimizer, 45}});
  const StepPhases phases = PhasesOfMedianStep(b.Build().steps);
  EXPECT_NEAR(phases.data_ms, 5.0, 1e-9);
  EXPECT_NEAR(phases.forward_ms, 15.0, 1e-9);
  EXPECT_NEAR(phases.backward_ms, 20.0, 1e-9);
  EXPECT_NEAR(phases.optimizer_ms, 5.0, 1e-9);
}

TEST(PhasesOfMedianStep, PhasesAddUpToTheStepWhereMediansPhaseByPhaseWouldNot) {
  TimelineBuilder b;
  // Medians phase by phase would give forward 10, backward 10 and optimizer 10 ms: 30 ms of
  // steps whose median is 45 ms.
  b.Step(0, 10, 40, 50)          // 50 ms: forward 10, backward 30, optimizer 10
      .Step(100, 130, 140, 150)  // 50 ms: forward 30, backward 10, optimizer 10
      .Step(200, 210, 220, 240)  // 40 ms: the lower middle by duration
      .Step(300, 310, 320, 330);  // 30 ms
  const StepPhases phases = PhasesOfMedianStep(b.Build().steps);
  EXPECT_NEAR(phases.step_ms, 40.0, 1e-9);
  EXPECT_NEAR(phases.forward_ms + phases.backward_ms + phases.optimizer_ms + phases.data_ms +
                  phases.rest_ms,
              phases.step_ms, 1e-9);
}

// Two workers' prefetched batches carry two steps through without a wait; the third waits for
// both batches' worth. The median step waited for nothing; the mean step says a third of it.
TEST(PhasesOfMeanStep, KeepsTheBurstsOfADataLoadersWait) {
  TimelineBuilder b;
  b.StepWithData(0, 0, 5, 15, 20)             // 20 ms, no wait
      .StepWithData(100, 100, 105, 115, 120)  // 20 ms, no wait
      .StepWithData(200, 230, 235, 245, 250);  // 50 ms, 30 of them waiting
  const std::vector<StepSpan> steps = b.Build().steps;
  EXPECT_NEAR(PhasesOfMedianStep(steps).data_ms, 0.0, 1e-9);
  const StepPhases mean = PhasesOfMeanStep(steps);
  EXPECT_NEAR(mean.step_ms, 30.0, 1e-9);
  EXPECT_NEAR(mean.data_ms, 10.0, 1e-9);
  EXPECT_NEAR(mean.forward_ms, 5.0, 1e-9);
  EXPECT_NEAR(mean.backward_ms, 10.0, 1e-9);
  EXPECT_NEAR(mean.optimizer_ms, 5.0, 1e-9);
  EXPECT_NEAR(mean.data_ms + mean.forward_ms + mean.backward_ms + mean.optimizer_ms + mean.rest_ms,
              mean.step_ms, 1e-9);
  EXPECT_EQ(PhasesOfMeanStep({}).step_ms, 0.0);
}

// A script's validation loop between two steps, a stretch of no phase in the second: its own
// part of the step, not its rest.
TEST(PhasesOfMeanStep, AnEvaluationBetweenStepsIsItsOwnPart) {
  TimelineBuilder b;
  b.Step(0, 10, 30, 35)
      .Stretches(35, {{Phase::kData, 36}, {Phase::kOutside, 76}, {Phase::kData, 77},
                      {Phase::kForward, 87}, {Phase::kBackward, 107}, {Phase::kOptimizer, 112}});
  const StepPhases mean = PhasesOfMeanStep(b.Build().steps);
  EXPECT_NEAR(mean.evaluation_ms, 20.0, 1e-9) << "40 ms in one step of two";
  EXPECT_NEAR(mean.forward_ms, 10.0, 1e-9);
  EXPECT_NEAR(mean.rest_ms, 0.0, 1e-9);
  EXPECT_NEAR(mean.data_ms + mean.forward_ms + mean.backward_ms + mean.optimizer_ms +
                  mean.evaluation_ms + mean.rest_ms,
              mean.step_ms, 1e-9);
}

// A script's loss, between the model's forward and backward(): its own part of the step.
TEST(PhasesOfMeanStep, AScriptsLossIsItsOwnPart) {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kForward, 10}, {Phase::kLoss, 16}, {Phase::kForward, 20},
                  {Phase::kLoss, 24}, {Phase::kBackward, 40}, {Phase::kOptimizer, 45}});
  const StepPhases mean = PhasesOfMeanStep(b.Build().steps);
  EXPECT_NEAR(mean.loss_ms, 10.0, 1e-9) << "both stretches: the code after each call";
  EXPECT_NEAR(mean.forward_ms, 14.0, 1e-9);
  EXPECT_NEAR(mean.rest_ms, 0.0, 1e-9);
}

TEST(PhasesOfMedianStep, NoStepsGiveZeros) {
  const StepPhases phases = PhasesOfMedianStep({});
  EXPECT_EQ(phases.step_ms, 0.0);
  EXPECT_EQ(phases.forward_ms, 0.0);
}

}  // namespace
}  // namespace advisor
