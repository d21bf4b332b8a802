#include "engine/autotest/tolerance.h"

#include <limits>

namespace advisor {

double NumericsTolerance(const std::string& dtype, ToleranceClass tolerance) {
  if (tolerance == ToleranceClass::kUnchecked) return std::numeric_limits<double>::infinity();
  if (dtype == "float64") return 1e-10;
  if (dtype == "float32") {
    // TF32 keeps 10 of float32's 23 mantissa bits in matmul and convolution inputs. Reordering:
    // a gradient summed over thousands of terms moves by more than float32's epsilon; the fused
    // attention kernels moved one weight gradient of the zoo's handwritten_attention case by
    // 5e-4 of its largest element (H200, PyTorch 2.11), while a wrong rewrite moves it by O(1).
    // TF32: the float32 MLP of the zoo's fp32_mlp case moved a weight gradient by 1.4e-2 of its
    // largest element with TF32 matmuls (H200, PyTorch 2.11).
    return tolerance == ToleranceClass::kTf32 ? 5e-2 : 1e-3;
  }
  if (dtype == "float16") return 5e-3;
  if (dtype == "bfloat16") return 4e-2;
  return 0;  // integers and booleans: reordering cannot change them
}

}  // namespace advisor
