#include "engine/model_candidate/numerics.h"

#include "engine/autotest/tolerance.h"

#include <algorithm>
#include <limits>

#include "engine/torch/dtype_name.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

std::string ShapeText(const torch::Tensor& tensor) {
  std::string text = "[";
  for (int64_t i = 0; i < tensor.dim(); ++i) {
    text += (i ? ", " : "") + std::to_string(tensor.size(i));
  }
  return text + "]";
}

struct TensorCheck {
  double max_abs = 0;
  double relative = 0;
  double tolerance = 0;
  std::string
      precision;  // the dtype whose tolerance applies, e.g. "float32 under bfloat16 autocast"
  std::string problem;    // set when the tensors cannot be compared element by element

  // How far along its tolerance the tensor got: above 1 is outside.
  double Ratio() const {
    if (!problem.empty()) return std::numeric_limits<double>::infinity();
    if (tolerance > 0) return relative / tolerance;
    return relative > 0 ? std::numeric_limits<double>::infinity() : 0;
  }
};

// Sets the tolerance of a tensor of `dtype` (see CompareSnapshots for the autocast rule), widened
// by `resolution`, the difference rounding alone can make (NamedTensor).
void ChooseTolerance(TensorCheck& check, torch::ScalarType dtype, ToleranceClass tolerance,
                     std::optional<torch::ScalarType> autocast_dtype, double resolution) {
  check.tolerance = NumericsTolerance(dtype, tolerance);
  check.precision = DtypeName(dtype);
  if (autocast_dtype && c10::isFloatingType(dtype)) {
    const double under_autocast = NumericsTolerance(*autocast_dtype, tolerance);
    if (under_autocast > check.tolerance) {
      check.tolerance = under_autocast;
      check.precision += " under " + DtypeName(*autocast_dtype) + " autocast";
    }
  }
  if (resolution > 0) {
    check.tolerance += resolution;
    check.precision += ", plus " + Printf("%.1e", resolution) + " of parameter rounding";
  }
}

TensorCheck CheckTensor(const NamedTensor& expected, const NamedTensor& actual,
                        ToleranceClass tolerance, std::optional<torch::ScalarType> autocast_dtype) {
  const torch::Tensor& baseline = expected.value;
  const torch::Tensor& candidate = actual.value;
  TensorCheck check;
  if (baseline.defined() != candidate.defined()) {
    check.problem =
        baseline.defined() ? "is missing in the candidate" : "exists only in the candidate";
    return check;
  }
  if (!baseline.defined()) return check;
  ChooseTolerance(check, baseline.scalar_type(), tolerance, autocast_dtype,
                  std::max(expected.resolution, actual.resolution));
  if (baseline.sizes() != candidate.sizes()) {
    check.problem = "has shape " + ShapeText(candidate) + ", the baseline's " + ShapeText(baseline);
    return check;
  }
  if (baseline.numel() == 0) return check;
  const torch::Tensor a = baseline.to(torch::kCPU, torch::kFloat64);
  const torch::Tensor b = candidate.to(torch::kCPU, torch::kFloat64);
  const torch::Tensor finite = torch::isfinite(a);
  if (!torch::equal(finite, torch::isfinite(b))) {
    check.problem = "is not finite at other elements than the baseline's";
    return check;
  }
  const torch::Tensor zero = torch::zeros_like(a);
  check.max_abs = torch::where(finite, (a - b).abs(), zero).max().item<double>();
  const double scale = std::max(torch::where(finite, a.abs(), zero).max().item<double>(),
                                torch::where(finite, b.abs(), zero).max().item<double>());
  check.relative = scale > 0 ? check.max_abs / scale : 0;
  return check;
}

std::string Describe(const std::string& name, const TensorCheck& check) {
  if (!check.problem.empty()) return name + " " + check.problem;
  return name + ": relative difference " + Printf("%.1e", check.relative) + " (max abs " +
         Printf("%.1e", check.max_abs) + "), tolerance " + Printf("%.1e", check.tolerance) + " (" +
         check.precision + ")";
}

}  // namespace

double NumericsTolerance(torch::ScalarType dtype, ToleranceClass tolerance) {
  return NumericsTolerance(DtypeName(dtype), tolerance);
}

NumericsComparison CompareSnapshots(const StepSnapshot& baseline, const StepSnapshot& candidate,
                                    ToleranceClass tolerance,
                                    std::optional<torch::ScalarType> autocast_dtype) {
  NumericsComparison result;
  if (baseline.tensors.size() != candidate.tensors.size()) {
    result.within_tolerance = false;
    result.worst = "the candidate's step produced " + std::to_string(candidate.tensors.size()) +
                   " tensors (loss, outputs, gradients), the baseline's " +
                   std::to_string(baseline.tensors.size());
    return result;
  }
  double worst_ratio = -1;
  for (std::size_t i = 0; i < baseline.tensors.size(); ++i) {
    const NamedTensor& expected = baseline.tensors[i];
    const NamedTensor& actual = candidate.tensors[i];
    TensorCheck check;
    if (expected.name != actual.name) {
      check.problem = "is " + actual.name + " in the candidate";
    } else {
      check = CheckTensor(expected, actual, tolerance, autocast_dtype);
    }
    ++result.compared;
    result.numerics.max_abs_diff = std::max(result.numerics.max_abs_diff, check.max_abs);
    result.numerics.max_rel_diff = std::max(result.numerics.max_rel_diff, check.relative);
    if (check.Ratio() > 1) result.within_tolerance = false;
    if (check.Ratio() > worst_ratio) {
      worst_ratio = check.Ratio();
      result.numerics.tolerance = check.tolerance;
      result.worst = Describe(expected.name, check);
    }
  }
  return result;
}

}  // namespace advisor
