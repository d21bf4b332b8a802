#include "engine/trace_analysis/device_clock_steps.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

// One step from 0 to 100 on the host: forward to 20, backward to 50, optimizer to 100.
std::vector<StepSpan> OneHostStep() { return {StepOfPhases(0, 0, 0, 20, 50, 100)}; }

TEST(DeviceClockSteps, AHostThatRunsAheadHasItsPhasesEndWhereTheirWorkEnds) {
  // The forward's kernel ends at 60, the backward's at 140, the optimizer's at 150: the host
  // waited for them all in its optimizer phase.
  const std::vector<LaunchedWork> work = {{5, 60}, {30, 140}, {55, 150}};
  const StepSpan step = DeviceClockSteps(OneHostStep(), work).at(0);
  EXPECT_EQ(step.start_ns, 0);
  EXPECT_EQ(step.end_ns, 150);
  EXPECT_EQ(step.TimeIn(Phase::kForward), 60);
  EXPECT_EQ(step.TimeIn(Phase::kBackward), 80) << "from the forward's work's end to its own";
  EXPECT_EQ(step.TimeIn(Phase::kOptimizer), 10);
}

TEST(DeviceClockSteps, APhaseLongerOnTheHostThanItsWorkKeepsTheHostsEnd) {
  // The device finished each phase's work before the host finished the phase.
  const std::vector<LaunchedWork> work = {{5, 15}, {30, 40}, {55, 70}};
  const StepSpan step = DeviceClockSteps(OneHostStep(), work).at(0);
  EXPECT_EQ(step.TimeIn(Phase::kForward), 20);
  EXPECT_EQ(step.TimeIn(Phase::kBackward), 30);
  EXPECT_EQ(step.TimeIn(Phase::kOptimizer), 50);
}

TEST(DeviceClockSteps, WorkLaunchedAtABoundaryIsTheNextPhasesAndEarlierWorkDelaysTheStart) {
  // Work of an earlier step still runs at 0; the kernel launched at 20 is the backward's.
  const std::vector<LaunchedWork> work = {{-10, 8}, {20, 90}};
  const StepSpan step = DeviceClockSteps(OneHostStep(), work).at(0);
  EXPECT_EQ(step.start_ns, 8);
  EXPECT_EQ(step.TimeIn(Phase::kForward), 12);
  EXPECT_EQ(step.TimeIn(Phase::kBackward), 70);
  EXPECT_EQ(step.TimeIn(Phase::kOptimizer), 10);
}

TEST(DeviceClockSteps, ConsecutiveStepsStayContiguousAndWithoutWorkTheHostsStepsAreKept) {
  const std::vector<StepSpan> host = {StepOfPhases(0, 0, 0, 20, 50, 100),
                                      StepOfPhases(1, 100, 100, 120, 150, 200)};
  const std::vector<StepSpan> device = DeviceClockSteps(host, {{90, 130}});
  EXPECT_EQ(device[0].end_ns, 130);
  EXPECT_EQ(device[1].start_ns, 130) << "the next step starts where the device is free";
  EXPECT_EQ(device[1].TimeIn(Phase::kForward), 0);

  const std::vector<StepSpan> unchanged = DeviceClockSteps(host, {});
  ASSERT_EQ(unchanged.size(), 2u);
  EXPECT_EQ(unchanged[1].start_ns, 100);
  EXPECT_EQ(unchanged[1].TimeIn(Phase::kBackward), 30);
}

}  // namespace
}  // namespace advisor
