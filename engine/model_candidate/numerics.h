// The numerics check's comparison: a candidate's step against the baseline's, tensor by tensor,
// each held to a tolerance chosen by its dtype, the workload's autocast dtype and the recipe's
// tolerance class.
//
// A tensor's difference is its largest absolute element difference relative to the largest
// magnitude in either tensor (max|a - b| / max(max|a|, max|b|)): element-wise relative errors blow
// up on values near zero, which summing in another order produces all the time, while a real
// change of the computation moves the largest elements too.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <string>

#include "engine/autotest/recipe.h"
#include "engine/model/run_report.h"
#include "engine/model_candidate/step_capture.h"

namespace advisor {

// The largest relative difference (as defined above) accepted for a tensor of `dtype`. Integer
// and boolean tensors must match exactly (0).
double NumericsTolerance(torch::ScalarType dtype, ToleranceClass tolerance);

struct NumericsComparison {
  bool within_tolerance = true;
  // The largest absolute and relative differences over all tensors, and the tolerance of the
  // tensor that came closest to (or furthest past) its own.
  Numerics numerics;
  // The tensor that came closest to its tolerance, or what did not match at all, e.g.
  // "grad of fc.weight: relative difference 2.1e-02 (max abs 3.0e-03), tolerance 1.0e-04
  // (float32)".
  std::string worst;
  int compared = 0;  // tensors compared
};

// Compares tensors of the same names in the same order; a missing gradient, another shape, or
// non-finite values where the other side has finite ones put the candidate outside tolerance.
//
// `autocast_dtype` is the workload's autocast dtype, nullopt without autocast. Under autocast the
// parameters and their gradients stay float32 while the matmuls and attention that produce them
// compute in bfloat16 or float16, so a kernel that sums in another order moves them by the half
// dtype's rounding: every floating tensor is then held to the looser of its own dtype's tolerance
// and the autocast dtype's. Without autocast each tensor's own dtype decides.
NumericsComparison CompareSnapshots(const StepSnapshot& baseline, const StepSnapshot& candidate,
                                    ToleranceClass tolerance,
                                    std::optional<torch::ScalarType> autocast_dtype = std::nullopt);

}  // namespace advisor
