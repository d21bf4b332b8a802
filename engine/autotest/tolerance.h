// How far a candidate's numbers may move from the baseline's and still count as the same
// computation: one table, by dtype and tolerance class, for every numerics check (the TorchScript
// worker's tensors, a script's losses).
#pragma once

#include <string>

#include "engine/autotest/recipe.h"

namespace advisor {

// Relative to the largest magnitude compared. `dtype` is torch's name without "torch."
// ("float32", "bfloat16", ...); integers and booleans get 0 (reordering cannot change them), a
// kUnchecked class infinity.
double NumericsTolerance(const std::string& dtype, ToleranceClass tolerance);

}  // namespace advisor
