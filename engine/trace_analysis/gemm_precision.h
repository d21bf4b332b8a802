// What a trace's GEMM kernels say about the step's matmul precision, for traces recorded without
// record_shapes (no input dtypes on the ops): cuBLAS and CUTLASS name their kernels after the
// math they do ("sm80_xmma_gemm_f32f32_..._ffma" and "cutlass_80_simt_sgemm" compute in float32
// on CUDA cores, "..._tf32f32_..." in TF32 on tensor cores, "..._bf16bf16_..." in bfloat16).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

enum class GemmPrecision { kNotGemm, kUnknown, kFloat32, kTf32, kBfloat16, kFloat16 };

GemmPrecision GemmPrecisionOf(std::string_view kernel_name);

struct GemmMath {
  std::string dtype;               // "float32", "bfloat16", "float16"; "" without GEMM kernels
  std::optional<bool> tf32;        // true where float32 GEMMs ran in TF32; absent otherwise
};

// The precision that most GEMM kernel time ran in.
GemmMath GemmMathOf(const std::vector<KernelEvent>& kernels);

}  // namespace advisor
