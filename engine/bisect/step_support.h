// How many steps of a window back a choice the window's medians made: the bisection decides from
// per-step evidence, not one median (docs/bisect.md, section 3).
#pragma once

#include <string>

namespace advisor {

// A level's choice is clear when the steps of its window, each decided alone, lead to the same
// place in most of them: a median can be carried by two steps that lost the CPU.
// A contested choice, an anomaly preferred to a sibling that costs more, must hold in nearly
// every step: fp32_mlp's wide layer (54 % of its parent) lost to the next module's backward
// excess (42 %) in 3 of 5 steps of a loaded machine's window.
struct StepSupport {
  int agreeing = 0;
  int steps = 0;
  bool contested = false;
  bool Clear() const { return contested ? 5 * agreeing >= 4 * steps : 2 * agreeing > steps; }
  double Fraction() const { return steps > 0 ? static_cast<double>(agreeing) / steps : 0; }
};

// "4 of 5 steps".
inline std::string StepsText(const StepSupport& support) {
  return std::to_string(support.agreeing) + " of " + std::to_string(support.steps) + " steps";
}

}  // namespace advisor
