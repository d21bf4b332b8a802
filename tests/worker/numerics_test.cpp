// The numerics check: a rewrite that changes what the step computes is caught with the measured
// difference, and each tensor is held to the tolerance of its dtype and the recipe's class.
#include "engine/worker/numerics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "engine/worker/gather_to_index.h"
#include "tests/worker/step_snapshots.h"
#include "tests/worker/worker_models.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;

// Test only: the gather-to-index pattern "rewritten" to gather the kept tokens in reverse order,
// the kind of slip (an index off by a permutation) the check exists to catch.
GraphRewrite ReversedGatherRewrite() {
  RewritePattern reversed = GatherToIndexRewrite().patterns.front();
  reversed.replacement = R"IR(
graph(%x, %dim, %idx, %unsqueeze_dim, %sizes, %implicit, %sparse_grad):
  %column : Tensor = aten::unsqueeze(%idx, %unsqueeze_dim)
  %index : Tensor = aten::expand(%column, %sizes, %implicit)
  %one : int = prim::Constant[value=1]()
  %token_dim : int[] = prim::ListConstruct(%one)
  %reversed : Tensor = aten::flip(%index, %token_dim)
  %out : Tensor = aten::gather(%x, %dim, %reversed, %sparse_grad)
  return (%out))IR";
  return {"reversed-gather", {reversed}};
}

TEST(Numerics, RejectsANonEquivalentRewriteWithTheMeasuredDifference) {
  const WorkloadSpec spec = ReadWorkload(testing::Models().gather);
  const StepSnapshot baseline = testing::SnapshotOf(LoadModule(testing::Models().gather), spec);
  torch::jit::Module wrong = LoadModule(testing::Models().gather);
  ASSERT_EQ(ApplyGraphRewrite(wrong, ReversedGatherRewrite()).sites, 3);
  const StepSnapshot candidate = testing::SnapshotOf(wrong, spec);

  const NumericsComparison comparison =
      CompareSnapshots(baseline, candidate, ToleranceClass::kReordering);
  EXPECT_FALSE(comparison.within_tolerance);
  EXPECT_EQ(comparison.numerics.tolerance, 1e-3);  // float32, reordering
  EXPECT_GT(comparison.numerics.max_rel_diff, 100 * comparison.numerics.tolerance);
  EXPECT_GT(comparison.numerics.max_abs_diff, 0);
  EXPECT_THAT(comparison.worst, HasSubstr("relative difference"));
  EXPECT_THAT(comparison.worst, HasSubstr("tolerance 1.0e-03 (float32)"));
}

StepSnapshot OneTensor(const std::string& name, torch::Tensor value) {
  return StepSnapshot{{{name, std::move(value)}}};
}

TEST(Numerics, HoldsEachTensorToItsDtypeAndClass) {
  const torch::Tensor values = torch::tensor({1.0f, -2.0f, 4.0f});
  const torch::Tensor nudged = values + torch::tensor({0.0f, 0.0f, 8e-3f});  // 2e-3 of the max
  const StepSnapshot baseline = OneTensor("output", values);
  const StepSnapshot candidate = OneTensor("output", nudged);

  const NumericsComparison reordering =
      CompareSnapshots(baseline, candidate, ToleranceClass::kReordering);
  EXPECT_FALSE(reordering.within_tolerance);
  EXPECT_NEAR(reordering.numerics.max_rel_diff, 2e-3, 1e-5);
  EXPECT_NEAR(reordering.numerics.max_abs_diff, 8e-3, 1e-6);
  EXPECT_TRUE(CompareSnapshots(baseline, candidate, ToleranceClass::kTf32).within_tolerance);
  // The same relative difference is ordinary rounding in bfloat16.
  EXPECT_TRUE(CompareSnapshots(OneTensor("output", values.to(torch::kBFloat16)),
                               OneTensor("output", nudged.to(torch::kBFloat16)),
                               ToleranceClass::kReordering)
                  .within_tolerance);
  // Integers cannot move by reordering.
  EXPECT_FALSE(CompareSnapshots(OneTensor("output", torch::tensor({1, 2})),
                                OneTensor("output", torch::tensor({1, 3})), ToleranceClass::kTf32)
                   .within_tolerance);
}

// Under bf16 autocast a float32 gradient carries the bfloat16 rounding of the kernels that made it:
// another attention backend moves it by bfloat16's tolerance, not float32's. Integers stay exact,
// and a workload without autocast keeps float32's tolerance (the test above).
TEST(Numerics, HoldsFloatTensorsOfAnAutocastWorkloadToTheAutocastDtype) {
  const torch::Tensor values = torch::tensor({1.0f, -2.0f, 4.0f});
  const torch::Tensor nudged = values + torch::tensor({0.0f, 0.0f, 4e-2f});  // 1e-2 of the max
  const NumericsComparison bf16 =
      CompareSnapshots(OneTensor("grad of fc.weight", values),
                       OneTensor("grad of fc.weight", nudged), ToleranceClass::kReordering,
                       torch::kBFloat16);
  EXPECT_TRUE(bf16.within_tolerance) << bf16.worst;
  EXPECT_EQ(bf16.numerics.tolerance, 4e-2);
  EXPECT_THAT(bf16.worst, HasSubstr("tolerance 4.0e-02 (float32 under bfloat16 autocast)"));

  const NumericsComparison fp16 =
      CompareSnapshots(OneTensor("grad of fc.weight", values),
                       OneTensor("grad of fc.weight", nudged), ToleranceClass::kReordering,
                       torch::kFloat16);
  EXPECT_FALSE(fp16.within_tolerance);  // 1e-2 is past float16's 5e-3
  EXPECT_THAT(fp16.worst, HasSubstr("(float32 under float16 autocast)"));

  // TF32's float32 tolerance is already looser than bfloat16's: it stays.
  const NumericsComparison tf32 =
      CompareSnapshots(OneTensor("output", values), OneTensor("output", nudged),
                       ToleranceClass::kTf32, torch::kBFloat16);
  EXPECT_EQ(tf32.numerics.tolerance, 5e-2);
  EXPECT_THAT(tf32.worst, HasSubstr("(float32)"));

  EXPECT_FALSE(CompareSnapshots(OneTensor("step", torch::tensor({1, 2})),
                                OneTensor("step", torch::tensor({1, 3})),
                                ToleranceClass::kReordering, torch::kBFloat16)
                   .within_tolerance);
}

TEST(Numerics, TreatsMissingGradientsAndOtherShapesAsDifferent) {
  const NumericsComparison missing = CompareSnapshots(
      OneTensor("grad of fc.weight", torch::ones({2})),
      OneTensor("grad of fc.weight", torch::Tensor()), ToleranceClass::kReordering);
  EXPECT_FALSE(missing.within_tolerance);
  EXPECT_EQ(missing.worst, "grad of fc.weight is missing in the candidate");

  const NumericsComparison reshaped =
      CompareSnapshots(OneTensor("output", torch::ones({2, 3})),
                       OneTensor("output", torch::ones({3, 2})), ToleranceClass::kReordering);
  EXPECT_FALSE(reshaped.within_tolerance);
  EXPECT_EQ(reshaped.worst, "output has shape [3, 2], the baseline's [2, 3]");

  const NumericsComparison diverged =
      CompareSnapshots(OneTensor("loss", torch::tensor({1.0f})),
                       OneTensor("loss", torch::tensor({std::numeric_limits<float>::quiet_NaN()})),
                       ToleranceClass::kReordering);
  EXPECT_FALSE(diverged.within_tolerance);
  EXPECT_THAT(diverged.worst, HasSubstr("not finite"));
}

}  // namespace
}  // namespace advisor
