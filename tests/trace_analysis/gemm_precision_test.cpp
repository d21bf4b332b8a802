#include "engine/trace_analysis/gemm_precision.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

// Kernel names as torch 2.11 traces on an H100 and cuBLAS/CUTLASS documentation write them.
TEST(GemmPrecision, KernelNamesSayTheirMath) {
  EXPECT_EQ(GemmPrecisionOf("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>("
                            "cutlass_80_simt_sgemm_128x256_8x4_nt_align1::Params)"),
            GemmPrecision::kFloat32);
  EXPECT_EQ(GemmPrecisionOf("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_"
                            "warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"),
            GemmPrecision::kFloat32);
  EXPECT_EQ(GemmPrecisionOf("sm80_xmma_gemm_tf32f32_tf32f32_f32_tn_n_tilesize128x128x16"),
            GemmPrecision::kTf32);
  EXPECT_EQ(GemmPrecisionOf("cutlass_80_tensorop_s1688gemm_128x128_16x4_tn_align4"),
            GemmPrecision::kTf32);
  EXPECT_EQ(GemmPrecisionOf("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"),
            GemmPrecision::kBfloat16) << "bf16 before f16";
  EXPECT_EQ(GemmPrecisionOf("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn"),
            GemmPrecision::kFloat16);
  EXPECT_EQ(GemmPrecisionOf("volta_h884gemm_64x64_ldg8_nn"), GemmPrecision::kFloat16);
  EXPECT_EQ(GemmPrecisionOf("gemm_kernel"), GemmPrecision::kUnknown);
  EXPECT_EQ(GemmPrecisionOf("void at::native::vectorized_elementwise_kernel<4>"),
            GemmPrecision::kNotGemm);
}

KernelEvent Kernel(const std::string& name, TimeNs ns) {
  KernelEvent kernel;
  kernel.name = name;
  kernel.start_ns = 1000;
  kernel.end_ns = 1000 + ns;
  return kernel;
}

TEST(GemmPrecision, TheStepsDtypeIsWhereMostGemmTimeRan) {
  const GemmMath mostly_bf16 = GemmMathOf({Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 700),
                                           Kernel("cutlass_80_simt_sgemm_128x256", 300),
                                           Kernel("vectorized_elementwise_kernel", 5000)});
  EXPECT_EQ(mostly_bf16.dtype, "bfloat16") << "elementwise kernels do not count";
  EXPECT_FALSE(mostly_bf16.tf32.has_value());

  const GemmMath tf32_and_float = GemmMathOf({Kernel("sm80_xmma_gemm_tf32f32_tf32f32", 200),
                                              Kernel("cutlass_80_simt_sgemm_128x256", 200),
                                              Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 300)});
  EXPECT_EQ(tf32_and_float.dtype, "float32") << "TF32 and float32 GEMMs both take float32 inputs";
  EXPECT_EQ(tf32_and_float.tf32, std::optional<bool>(true));

  const GemmMath none = GemmMathOf({Kernel("reduce_kernel", 100)});
  EXPECT_EQ(none.dtype, "");
  EXPECT_FALSE(none.tf32.has_value());
}

}  // namespace
}  // namespace advisor
