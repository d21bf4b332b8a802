#include "engine/autotest/candidate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/autotest/applicability.h"

namespace advisor {
namespace {

Recipe Knob(const std::string& id) {
  Recipe recipe;
  recipe.id = id;
  recipe.kind = RecipeKind::kKnob;
  recipe.preserves_semantics = true;
  recipe.tolerance = ToleranceClass::kReordering;
  recipe.devices = {"cuda"};
  return recipe;
}

TEST(Candidate, SingleRecipeKeepsItsKindAndFields) {
  Recipe alloc = Knob("alloc");
  alloc.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
  const CandidateSpec spec = CombineRecipes({&alloc});
  EXPECT_EQ(spec.id, "alloc");
  EXPECT_EQ(spec.kind, "knob");
  EXPECT_TRUE(spec.preserves_semantics);
  EXPECT_EQ(spec.env, alloc.env);
  EXPECT_TRUE(spec.rewrites.empty());
}

TEST(Candidate, CombinationMergesEverythingAndTakesTheLoosestTolerance) {
  Recipe tf32 = Knob("tf32");
  tf32.overrides.allow_tf32 = true;
  tf32.tolerance = ToleranceClass::kTf32;
  Recipe batch = Knob("batch");
  batch.overrides.batch_scale = 2;
  batch.preserves_semantics = false;
  batch.tolerance = ToleranceClass::kUnchecked;
  batch.env["A"] = "1";
  Recipe gather = Knob("gather");
  gather.kind = RecipeKind::kRewrite;
  gather.rewrite = "gather-to-index";

  const CandidateSpec spec = CombineRecipes({&gather, &tf32, &batch});
  EXPECT_EQ(spec.id, "gather+tf32+batch");
  EXPECT_EQ(spec.recipe_ids, (std::vector<std::string>{"gather", "tf32", "batch"}));
  EXPECT_EQ(spec.kind, "combination");
  EXPECT_FALSE(spec.preserves_semantics);
  EXPECT_EQ(spec.tolerance, ToleranceClass::kUnchecked);
  EXPECT_EQ(spec.overrides.allow_tf32, true);
  EXPECT_EQ(spec.overrides.batch_scale, 2);
  EXPECT_EQ(spec.env.at("A"), "1");
  EXPECT_EQ(spec.rewrites, std::vector<std::string>{"gather-to-index"});

  const CandidateSpec preserving = CombineRecipes({&gather, &tf32});
  EXPECT_TRUE(preserving.preserves_semantics);
  EXPECT_EQ(preserving.tolerance, ToleranceClass::kTf32);
}

TEST(Candidate, ConflictsAreDeclaredOrComeFromClashingSettings) {
  Recipe a = Knob("a");
  Recipe b = Knob("b");
  a.overrides.cudnn_benchmark = true;
  b.overrides.channels_last = true;
  EXPECT_EQ(FindConflict({&a, &b}), "");

  b.conflicts_with = {"a"};  // declared on one side is enough
  EXPECT_EQ(FindConflict({&a, &b}), "a and b are declared as conflicting");
  b.conflicts_with.clear();

  b.overrides.cudnn_benchmark = false;
  EXPECT_EQ(FindConflict({&a, &b}), "a and b set overrides.cudnn_benchmark differently");
  b.overrides.cudnn_benchmark = true;  // the same value twice is no clash
  EXPECT_EQ(FindConflict({&a, &b}), "");

  a.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
  b.env["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:128";
  EXPECT_EQ(FindConflict({&a, &b}), "a and b set env.PYTORCH_CUDA_ALLOC_CONF differently");
}

TEST(Candidate, TwoFormsOfTorchCompileConflict) {
  Recipe plain = Knob("plain");
  plain.overrides.compile = true;
  Recipe autotune = Knob("autotune");
  autotune.overrides.compile_mode = "max-autotune";
  EXPECT_EQ(FindConflict({&plain, &autotune}),
            "plain and autotune compile the model in two forms of torch.compile");
  Recipe regional = Knob("regional");
  regional.overrides.compile_mode = "regional";
  EXPECT_EQ(FindConflict({&autotune, &regional}),
            "autotune and regional set overrides.compile_mode differently");
  Recipe foreach_compile = Knob("foreach");
  foreach_compile.overrides.compile = true;
  foreach_compile.overrides.fused_optimizer = true;
  EXPECT_EQ(FindConflict({&plain, &foreach_compile}), "") << "the same compile twice";
  Recipe tf32 = Knob("tf32");
  tf32.overrides.allow_tf32 = true;
  EXPECT_EQ(FindConflict({&autotune, &tf32}), "");
}

TEST(Applicability, PlannedDoorDeviceAndVersionAreChecked) {
  Recipe recipe = Knob("k");
  recipe.min_torch_version = "2.1";
  EXPECT_EQ(WhyNotApplicable(recipe, Door::kModel, "cuda", "2.11.0+cu130"), "");
  EXPECT_EQ(WhyNotApplicable(recipe, Door::kModel, "cpu", "2.11.0"),
            "not applicable: applies to cuda, this run is on cpu");
  EXPECT_EQ(WhyNotApplicable(recipe, Door::kModel, "cuda", "2.0.1"),
            "not applicable: needs torch 2.1 or newer, this is 2.0.1");
  EXPECT_EQ(WhyNotApplicable(recipe, Door::kModel, "cuda", ""),
            "not applicable: needs torch 2.1 or newer, this is an unknown version");
  recipe.doors = {Door::kModel};
  EXPECT_THAT(WhyNotApplicable(recipe, Door::kScript, "cuda", "2.11.0"),
              ::testing::StartsWith("not applicable to a script"));
  recipe.status = RecipeStatus::kPlanned;
  EXPECT_THAT(WhyNotApplicable(recipe, Door::kModel, "cuda", "2.11.0"),
              ::testing::StartsWith("not implemented"));
}

// A CUDA graph is a GPU's: the skip on the CPU says so, not only where the recipe applies.
TEST(Applicability, CudaGraphsOnTheCpuSayWhyNot) {
  Recipe overhead = Knob("overhead");
  overhead.overrides.compile_mode = "reduce-overhead";
  EXPECT_EQ(WhyNotApplicable(overhead, Door::kScript, "cpu", "2.11.0"),
            "not applicable: applies to cuda, this run is on cpu: CUDA graphs replay a GPU's "
            "kernel launches, and a CPU step launches none");
  Recipe graphs = Knob("graphs");
  graphs.overrides.cuda_graphs = true;
  EXPECT_THAT(WhyNotApplicable(graphs, Door::kModel, "cpu", "2.11.0"),
              ::testing::EndsWith("a CPU step launches none"));
  Recipe autotune = Knob("autotune");
  autotune.overrides.compile_mode = "max-autotune";
  EXPECT_EQ(WhyNotApplicable(autotune, Door::kScript, "cpu", "2.11.0"),
            "not applicable: applies to cuda, this run is on cpu");
}

TEST(Applicability, ALaunchersRanksTakeScriptKnobsAndTheirOwn) {
  Recipe script_knob = Knob("fused");
  script_knob.doors = {Door::kScript};
  EXPECT_EQ(WhyNotApplicable(script_knob, Door::kRanks, "cuda", "2.11.0"), "")
      << "what the probe applies to one script it applies in every rank";
  Recipe ddp_knob = Knob("ddp");
  ddp_knob.doors = {Door::kRanks};
  EXPECT_EQ(WhyNotApplicable(ddp_knob, Door::kRanks, "cuda", "2.11.0"), "");
  EXPECT_THAT(WhyNotApplicable(ddp_knob, Door::kScript, "cuda", "2.11.0"),
              ::testing::HasSubstr("needs several ranks under a launcher"));
  EXPECT_THAT(WhyNotApplicable(ddp_knob, Door::kModel, "cuda", "2.11.0"),
              ::testing::StartsWith("not applicable to a TorchScript model"));
  Recipe model_knob = Knob("model-only");
  model_knob.doors = {Door::kModel};
  EXPECT_THAT(WhyNotApplicable(model_knob, Door::kRanks, "cuda", "2.11.0"),
              ::testing::StartsWith("not applicable to a script"));
}

TEST(Applicability, VersionsCompareNumberByNumber) {
  EXPECT_TRUE(VersionAtLeast("2.11.0+cu130", "2.1"));
  EXPECT_TRUE(VersionAtLeast("2.1", "2.1.0"));
  EXPECT_TRUE(VersionAtLeast("10.0", "9.9"));
  EXPECT_FALSE(VersionAtLeast("2.0.1", "2.1"));
  EXPECT_FALSE(VersionAtLeast("1.13.1", "2"));
  EXPECT_FALSE(VersionAtLeast("unknown", "1"));
}

}  // namespace
}  // namespace advisor
