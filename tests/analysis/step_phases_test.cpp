#include "engine/analysis/step_phases.h"

#include <gtest/gtest.h>

#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::TimelineBuilder;

TEST(MedianPhases, TheDataPhaseIsItsOwnAndForwardStartsAfterIt) {
  TimelineBuilder b;
  b.StepWithData(0, 4, 10, 30, 40)
      .StepWithData(100, 108, 114, 134, 144)
      .StepWithData(200, 206, 212, 232, 242);
  const StepPhaseMedians phases = MedianPhases(b.Build().steps);
  EXPECT_NEAR(phases.data_ms, 6.0, 1e-9);
  EXPECT_NEAR(phases.forward_ms, 6.0, 1e-9);
  EXPECT_NEAR(phases.backward_ms, 20.0, 1e-9);
  EXPECT_NEAR(phases.optimizer_ms, 10.0, 1e-9);
}

TEST(MedianPhases, StepsWithoutADataPhaseStartWithForward) {
  TimelineBuilder b;
  b.Step(50, 60, 80, 90).Step(100, 112, 130, 140);
  const StepPhaseMedians phases = MedianPhases(b.Build().steps);
  EXPECT_EQ(phases.data_ms, 0.0) << "a step without a data stretch waited for nothing";
  EXPECT_NEAR(phases.forward_ms, 11.0, 1e-9);
  EXPECT_NEAR(phases.backward_ms, 19.0, 1e-9);
}

TEST(MedianPhases, EachPhaseSumsItsStretchesWithinAStep) {
  TimelineBuilder b;
  b.Stretches(0, {{Phase::kData, 2}, {Phase::kForward, 10}, {Phase::kBackward, 20},
                  {Phase::kData, 23}, {Phase::kForward, 30}, {Phase::kBackward, 40},
                  {Phase::kOptimizer, 45}});
  const StepPhaseMedians phases = MedianPhases(b.Build().steps);
  EXPECT_NEAR(phases.data_ms, 5.0, 1e-9);
  EXPECT_NEAR(phases.forward_ms, 15.0, 1e-9);
  EXPECT_NEAR(phases.backward_ms, 20.0, 1e-9);
  EXPECT_NEAR(phases.optimizer_ms, 5.0, 1e-9);
}

TEST(MedianPhases, NoStepsGiveZeros) {
  const StepPhaseMedians phases = MedianPhases({});
  EXPECT_EQ(phases.data_ms, 0.0);
  EXPECT_EQ(phases.forward_ms, 0.0);
}

}  // namespace
}  // namespace advisor
