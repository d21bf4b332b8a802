// The numerics check: a rewrite that changes what the step computes is caught with the measured
// difference, and each tensor is held to the tolerance of its dtype and the recipe's class.
#include "engine/model_candidate/numerics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "engine/model_candidate/gather_to_index.h"
#include "tests/model_candidate/step_snapshots.h"
#include "tests/model_candidate/worker_models.h"

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
  ASSERT_EQ(ApplyGraphRewrite(wrong, ReversedGatherRewrite()).sites, 4);
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
  const NumericsComparison bf16 = CompareSnapshots(OneTensor("grad of fc.weight", values),
                                                   OneTensor("grad of fc.weight", nudged),
                                                   ToleranceClass::kReordering, torch::kBFloat16);
  EXPECT_TRUE(bf16.within_tolerance) << bf16.worst;
  EXPECT_EQ(bf16.numerics.tolerance, 4e-2);
  EXPECT_THAT(bf16.worst, HasSubstr("tolerance 4.0e-02 (float32 under bfloat16 autocast)"));

  const NumericsComparison fp16 = CompareSnapshots(OneTensor("grad of fc.weight", values),
                                                   OneTensor("grad of fc.weight", nudged),
                                                   ToleranceClass::kReordering, torch::kFloat16);
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

// Only recipes that change the optimizer's step have their updates compared (CaptureStep): a
// candidate whose optimizer does half the baseline's update has the same gradients, so only the
// updates can tell.
TEST(Numerics, RecordedUpdatesCatchAWrongOptimizerStep) {
  const WorkloadSpec spec = ReadWorkload(testing::Models().plain);
  WorkloadSpec half_step = spec;
  half_step.optimizer.lr = spec.optimizer.lr / 2;

  const auto snapshot = [](const WorkloadSpec& workload, bool record_updates) {
    return testing::SnapshotOf(LoadModule(testing::Models().plain), workload, record_updates);
  };
  EXPECT_TRUE(CompareSnapshots(snapshot(spec, false), snapshot(half_step, false),
                               ToleranceClass::kReordering)
                  .within_tolerance);

  const StepSnapshot baseline = snapshot(spec, true);
  const NumericsComparison halved =
      CompareSnapshots(baseline, snapshot(half_step, true), ToleranceClass::kReordering);
  EXPECT_FALSE(halved.within_tolerance);
  EXPECT_NEAR(halved.numerics.max_rel_diff, 0.5, 1e-3);
  EXPECT_THAT(halved.worst, HasSubstr("update of "));
  EXPECT_THAT(halved.worst, HasSubstr("of parameter rounding"));
  EXPECT_TRUE(CompareSnapshots(baseline, snapshot(spec, true), ToleranceClass::kReordering)
                  .within_tolerance);
}

// An update is known to within the rounding of the parameter it lands in: a difference of one ulp
// of the parameter passes, however small the update; one beyond the tolerance and the rounding
// does not.
TEST(Numerics, HoldsAnUpdateToItsTolerancePlusTheParametersRounding) {
  const torch::Tensor update = torch::tensor({1e-5f, -2e-5f});
  const torch::Tensor one_ulp_off = update + torch::tensor({0x1p-23f, 0.0f});  // 6e-3 of the max
  const double rounding = 0x1p-23 / 2e-5;  // float32 parameters of magnitude 1
  const auto update_of = [](torch::Tensor value, double resolution) {
    return StepSnapshot{{{"update of fc.weight", std::move(value), resolution}}};
  };
  const NumericsComparison one_ulp = CompareSnapshots(
      update_of(update, rounding), update_of(one_ulp_off, rounding), ToleranceClass::kReordering);
  EXPECT_TRUE(one_ulp.within_tolerance) << one_ulp.worst;
  EXPECT_NEAR(one_ulp.numerics.tolerance, 1e-3 + rounding, 1e-12);
  // Without the rounding, the same ulp is past float32's reordering tolerance.
  EXPECT_FALSE(
      CompareSnapshots(update_of(update, 0), update_of(one_ulp_off, 0), ToleranceClass::kReordering)
          .within_tolerance);

  EXPECT_FALSE(CompareSnapshots(update_of(update, rounding),
                                update_of(update + torch::tensor({4e-7f, 0.0f}), rounding),
                                ToleranceClass::kReordering)
                   .within_tolerance);  // 2e-2 of the largest update, past 7e-3
}

}  // namespace
}  // namespace advisor
