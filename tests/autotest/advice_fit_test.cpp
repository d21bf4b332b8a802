#include "engine/autotest/advice_fit.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

Finding Named(const std::string& rule, const std::string& path, Severity severity,
              const std::string& recipe, const std::string& message) {
  Finding finding;
  finding.rule = rule;
  finding.path = path;
  finding.severity = severity;
  finding.recipe = recipe;
  finding.message = message;
  return finding;
}

Recipe Needing(const std::string& id, const std::string& torch) {
  Recipe recipe;
  recipe.id = id;
  recipe.min_torch_version = torch;
  return recipe;
}

TEST(FitFindingsToTorch, AFixTheRunsTorchLacksSaysWhichItNeedsAndIsNoLongerHigh) {
  // LibTorch 1.13 has no F.scaled_dot_product_attention (2.0; the recipe asks for 2.1).
  std::vector<Finding> findings = {
      Named("materialised-attention", "blocks.0.attn", Severity::kHigh, "sdpa-attention",
            "Use F.scaled_dot_product_attention."),
      Named("fp32-matmul", "", Severity::kHigh, "tf32-matmul", "Allow TF32.")};
  FitFindingsToTorch(findings, {Needing("sdpa-attention", "2.1"), Needing("tf32-matmul", "")},
                     "1.13.0");
  EXPECT_EQ(findings[0].needs_torch, "2.1");
  EXPECT_EQ(findings[0].severity, Severity::kLow);
  EXPECT_EQ(findings[0].message,
            "Use F.scaled_dot_product_attention. Its fix (the recipe sdpa-attention) needs "
            "torch 2.1 or newer; this run has 1.13.0.");
  EXPECT_EQ(findings[1].needs_torch, "");
  EXPECT_EQ(findings[1].severity, Severity::kHigh);
}

TEST(FitFindingsToTorch, ANewEnoughOrUnknownTorchChangesNothing) {
  const Finding original = Named("materialised-attention", "a", Severity::kHigh, "sdpa-attention",
                                 "Use SDPA.");
  for (const char* version : {"2.11.0+cu130", "2.1", ""}) {
    std::vector<Finding> findings = {original};
    FitFindingsToTorch(findings, {Needing("sdpa-attention", "2.1")}, version);
    EXPECT_EQ(findings[0].needs_torch, "") << version;
    EXPECT_EQ(findings[0].severity, Severity::kHigh) << version;
    EXPECT_EQ(findings[0].message, "Use SDPA.") << version;
  }
}

TEST(MergeFindings, OneRuleAboutOneModuleIsOneFindingWithAllItsAdvice) {
  Finding gemm = Named("fp32-matmul", "", Severity::kMedium, "tf32-matmul",
                       "GEMMs run in float32: allow TF32.");
  gemm.expected_gain_ms = 3.0;
  gemm.evidence = "addmm 12 ms";
  Finding conv = Named("fp32-matmul", "", Severity::kHigh, "",
                       "Convolutions run in float32: allow TF32 for cuDNN.");
  conv.expected_gain_ms = 5.0;
  conv.evidence = "convolution 20 ms";
  Finding other = Named("fp32-matmul", "head", Severity::kLow, "tf32-matmul", "In head too.");
  std::vector<Finding> findings = {gemm, other, conv, gemm};
  MergeFindings(findings);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].path, "");
  EXPECT_EQ(findings[0].severity, Severity::kHigh);
  EXPECT_EQ(*findings[0].expected_gain_ms, 5.0);
  EXPECT_EQ(findings[0].recipe, "tf32-matmul");
  EXPECT_EQ(findings[0].message,
            "GEMMs run in float32: allow TF32. Convolutions run in float32: allow TF32 for "
            "cuDNN.");
  EXPECT_EQ(findings[0].evidence, "addmm 12 ms; convolution 20 ms");
  EXPECT_EQ(findings[1].path, "head");
}

TEST(MergeFindings, EveryRecipeOfTheMergedFindingsStaysForTheAutotester) {
  // fp32-matmul writes one finding for bf16 autocast and one for TF32: merged, the autotester
  // must still measure both (it had measured bf16 alone).
  std::vector<Finding> findings = {
      Named("fp32-matmul", "", Severity::kHigh, "bf16-autocast", "Autocast to bf16."),
      Named("fp32-matmul", "", Severity::kHigh, "tf32-matmul", "Allow TF32."),
      Named("fp32-matmul", "", Severity::kMedium, "bf16-autocast", "Autocast to bf16.")};
  MergeFindings(findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].recipe, "bf16-autocast");
  EXPECT_EQ(findings[0].also_recipes, std::vector<std::string>{"tf32-matmul"});
  EXPECT_EQ(RecipesOf(findings[0]), (std::vector<std::string>{"bf16-autocast", "tf32-matmul"}));
}

TEST(MergeFindings, MergedAdviceFitsTheRunWhenAnyOfItsRecipesDoes) {
  std::vector<Finding> findings = {
      Named("materialised-attention", "attn", Severity::kHigh, "sdpa-attention", "Use SDPA."),
      Named("materialised-attention", "attn", Severity::kMedium, "", "Or chunk it.")};
  FitFindingsToTorch(findings, {Needing("sdpa-attention", "2.1")}, "1.13.0");
  MergeFindings(findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].needs_torch, "");
  EXPECT_EQ(findings[0].severity, Severity::kMedium);

  std::vector<Finding> both_too_new = {
      Named("materialised-attention", "attn", Severity::kHigh, "sdpa-attention", "Use SDPA."),
      Named("materialised-attention", "attn", Severity::kHigh, "sdpa-flash-backend", "Flash.")};
  FitFindingsToTorch(both_too_new,
                     {Needing("sdpa-attention", "2.1"), Needing("sdpa-flash-backend", "2.1")},
                     "1.13.0");
  MergeFindings(both_too_new);
  ASSERT_EQ(both_too_new.size(), 1u);
  EXPECT_EQ(both_too_new[0].needs_torch, "2.1");
  EXPECT_EQ(both_too_new[0].severity, Severity::kLow);
}

FixResult Measured(const std::string& recipe, const std::string& status, double speedup) {
  FixResult fix;
  fix.recipe = recipe;
  fix.status = status;
  fix.speedup = speedup;
  return fix;
}

// GPT-2 on an H200: the fp32-matmul finding offered bf16 autocast first, and TF32 measured
// faster; a low finding's verified fix beat both.
TEST(LeadWithMeasuredFixes, TheFixMeasuredFastestLeadsTheFindingAndTheFindings) {
  std::vector<Finding> findings = {
      Named("fp32-matmul", "", Severity::kHigh, "bf16-autocast", "Use bf16."),
      Named("materialised-attention", "h.0.attn", Severity::kMedium, "sdpa-attention", "SDPA."),
      Named("cudnn-benchmark", "", Severity::kLow, "cudnn-benchmark", "Benchmark mode."),
      Named("loader", "", Severity::kLow, "", "No recipe.")};
  findings[0].also_recipes = {"tf32-matmul"};
  const std::vector<FixResult> fixes = {Measured("bf16-autocast", "verified", 1.98),
                                        Measured("tf32-matmul", "verified", 2.13),
                                        Measured("sdpa-attention", "no-change", 1.01),
                                        Measured("cudnn-benchmark", "verified", 2.5),
                                        Measured("tf32-matmul+cudnn-benchmark", "verified", 4.0)};
  LeadWithMeasuredFixes(findings, fixes);
  ASSERT_EQ(findings.size(), 4u);
  EXPECT_EQ(findings[0].rule, "cudnn-benchmark") << "a combination is not a finding's fix";
  EXPECT_EQ(findings[1].rule, "fp32-matmul");
  EXPECT_EQ(findings[1].recipe, "tf32-matmul");
  EXPECT_EQ(findings[1].also_recipes, std::vector<std::string>{"bf16-autocast"});
  EXPECT_EQ(findings[2].rule, "materialised-attention") << "unverified: in the rules' order";
  EXPECT_EQ(findings[3].rule, "loader");
}

TEST(LeadWithMeasuredFixes, WithoutAVerifiedFixNothingMoves) {
  std::vector<Finding> findings = {
      Named("fp32-matmul", "", Severity::kHigh, "bf16-autocast", "Use bf16."),
      Named("cudnn-benchmark", "", Severity::kLow, "cudnn-benchmark", "Benchmark mode.")};
  findings[0].also_recipes = {"tf32-matmul"};
  LeadWithMeasuredFixes(findings, {Measured("tf32-matmul", "rejected", 0.8),
                                   Measured("cudnn-benchmark", "failed", 0)});
  EXPECT_EQ(findings[0].rule, "fp32-matmul");
  EXPECT_EQ(findings[0].recipe, "bf16-autocast");
  EXPECT_EQ(findings[1].rule, "cudnn-benchmark");
}

}  // namespace
}  // namespace advisor
