// Which steps the hot spot's op lead counts (engine/bisect/op_lead.h).
#include "engine/bisect/op_lead.h"

#include <gtest/gtest.h>

#include <vector>

namespace advisor {
namespace {

// `leads` and `disturbed` as strings of 0 and 1, one character a step.
std::vector<OpStep> Steps(const std::string& leads, const std::string& disturbed) {
  std::vector<OpStep> steps;
  for (std::size_t i = 0; i < leads.size(); ++i) {
    steps.push_back({leads[i] == '1', disturbed[i] == '1', false});
  }
  return steps;
}

TEST(OpLead, DisturbedStepsAreLeftOutWhileThreeAndHalfTheStepsRemain) {
  const std::vector<OpStep> steps = Steps("11100", "00011");
  const StepSupport support = OpLead(steps);
  EXPECT_EQ(support.agreeing, 3);
  EXPECT_EQ(support.steps, 3);
  EXPECT_TRUE(support.Clear());
  EXPECT_EQ(LeftOutText(steps, support),
            "; 2 steps left out: page faults beyond the ops' usual, as when a DataLoader has just "
            "started its workers");
}

TEST(OpLead, EveryStepCountsWhereTooFewAreUndisturbed) {
  const StepSupport fewer_than_half = OpLead(Steps("11000", "00111"));
  EXPECT_EQ(fewer_than_half.steps, 5);
  EXPECT_EQ(fewer_than_half.agreeing, 2);
  EXPECT_FALSE(fewer_than_half.Clear());
  const StepSupport fewer_than_three = OpLead(Steps("110", "001"));
  EXPECT_EQ(fewer_than_three.steps, 3) << "two undisturbed steps are too few to decide alone";
}

TEST(OpLead, TwoWindowsPooledLeaveOutTheirDisturbedStepsTogether) {
  // One window with three disturbed steps of five, the next with one: six of ten remain.
  const std::vector<OpStep> steps = Steps("11000" "11110", "00111" "00001");
  const StepSupport support = OpLead(steps);
  EXPECT_EQ(support.steps, 6);
  EXPECT_EQ(support.agreeing, 6);
  EXPECT_EQ(LeftOutText(steps, support).substr(0, 19), "; 4 steps left out:");
}

TEST(OpLead, StepsWithinTheFaultsPriceAreSaidApartFromTheLeftOutOnes) {
  std::vector<OpStep> steps = Steps("11100", "00011");
  steps[0].leads = false;
  steps[0].within_fault_price = true;
  steps[4].within_fault_price = true;  // left out: not counted again
  const StepSupport support = OpLead(steps);
  EXPECT_EQ(support.agreeing, 2);
  EXPECT_EQ(LeftOutText(steps, support),
            "; 2 steps left out: page faults beyond the ops' usual, as when a DataLoader has just "
            "started its workers; in 1 the ops differed by less than a quarter of their page "
            "faults' priced time");
}

TEST(OpLead, ALeadMustHoldInFourStepsOfFive) {
  EXPECT_TRUE(OpLead(Steps("11110", "00000")).Clear());
  EXPECT_FALSE(OpLead(Steps("11100", "00000")).Clear());
  EXPECT_EQ(LeftOutText(Steps("11100", "00000"), OpLead(Steps("11100", "00000"))), "");
}

}  // namespace
}  // namespace advisor
