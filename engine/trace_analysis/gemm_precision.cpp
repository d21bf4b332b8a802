#include "engine/trace_analysis/gemm_precision.h"

#include <array>

namespace advisor {
namespace {

bool Has(std::string_view name, std::string_view part) {
  return name.find(part) != std::string_view::npos;
}

}  // namespace

GemmPrecision GemmPrecisionOf(std::string_view name) {
  if (!Has(name, "gemm")) return GemmPrecision::kNotGemm;  // sgemm, hgemm, xmma_gemm, cutlass gemm
  // bf16 first: "bf16" contains "f16".
  if (Has(name, "bf16")) return GemmPrecision::kBfloat16;
  // CUTLASS's "tensorop_s1688gemm": float32 operands on tensor cores, which is TF32.
  if (Has(name, "tf32") || Has(name, "tensorop_s")) return GemmPrecision::kTf32;
  if (Has(name, "f16") || Has(name, "fp16") || Has(name, "hgemm") || Has(name, "h884") ||
      Has(name, "h1688") || Has(name, "h16816")) {
    return GemmPrecision::kFloat16;
  }
  if (Has(name, "sgemm") || Has(name, "f32f32") || Has(name, "ffma"))
    return GemmPrecision::kFloat32;
  return GemmPrecision::kUnknown;
}

GemmMath GemmMathOf(const std::vector<KernelEvent>& kernels) {
  // Kernel time by precision, indexed by GemmPrecision.
  std::array<TimeNs, 6> time{};
  for (const KernelEvent& kernel : kernels) {
    time[static_cast<int>(GemmPrecisionOf(kernel.name))] += kernel.end_ns - kernel.start_ns;
  }
  const TimeNs float32 = time[static_cast<int>(GemmPrecision::kFloat32)];
  const TimeNs tf32 = time[static_cast<int>(GemmPrecision::kTf32)];
  const TimeNs bfloat16 = time[static_cast<int>(GemmPrecision::kBfloat16)];
  const TimeNs float16 = time[static_cast<int>(GemmPrecision::kFloat16)];
  GemmMath math;
  if (float32 + tf32 > 0 && float32 + tf32 >= bfloat16 && float32 + tf32 >= float16) {
    math.dtype = "float32";
  } else if (bfloat16 > 0 && bfloat16 >= float16) {
    math.dtype = "bfloat16";
  } else if (float16 > 0) {
    math.dtype = "float16";
  }
  // Only TF32 kernels say what the setting was: float32 kernels on CUDA cores may be cuBLAS's
  // choice for a shape with TF32 allowed.
  if (tf32 > 0) math.tf32 = true;
  return math;
}

}  // namespace advisor
