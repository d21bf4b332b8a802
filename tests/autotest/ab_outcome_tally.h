// The A/B decisions of many experiments counted by outcome, as the autotest's statistics tests
// (ab_stats_bursts_test.cpp, ab_controls_replay_test.cpp) judge them against issue #28's bars.
#pragma once

#include "engine/autotest/ab_stats.h"

namespace advisor::testing {

struct OutcomeTally {
  int faster = 0;
  int slower = 0;
  int no_change = 0;
  int undecided = 0;

  void Add(AbDecision::Outcome outcome) { ++CountOf(outcome); }

 private:
  int& CountOf(AbDecision::Outcome outcome) {
    switch (outcome) {
      case AbDecision::Outcome::kFaster:
        return faster;
      case AbDecision::Outcome::kSlower:
        return slower;
      case AbDecision::Outcome::kNoChange:
        return no_change;
      case AbDecision::Outcome::kUndecided:
        break;
    }
    return undecided;
  }
};

}  // namespace advisor::testing
