#include "engine/autotest/recipe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/autotest/test_files.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;

constexpr char kKnob[] = R"({
  "id": "alloc-knob", "title": "t", "description": "d", "kind": "knob", "status": "ready",
  "preserves_semantics": true, "tolerance": "reordering", "devices": ["cuda"],
  "env": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"},
  "overrides": {"deterministic": false, "batch_scale": 2, "intra_op_threads": "physical-cores",
                "dataloader_workers": 4},
  "requires": {"torch": "2.1"}, "conflicts_with": ["other"]
})";

TEST(Recipe, ParsesEveryFieldOfAKnob) {
  const Recipe recipe = ParseRecipe(kKnob, "recipes/alloc-knob.json");
  EXPECT_EQ(recipe.id, "alloc-knob");
  EXPECT_EQ(recipe.kind, RecipeKind::kKnob);
  EXPECT_EQ(recipe.status, RecipeStatus::kReady);
  EXPECT_TRUE(recipe.preserves_semantics);
  EXPECT_EQ(recipe.tolerance, ToleranceClass::kReordering);
  EXPECT_EQ(recipe.devices, std::vector<std::string>{"cuda"});
  EXPECT_EQ(recipe.env.at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
  EXPECT_EQ(recipe.overrides.deterministic, false);
  EXPECT_EQ(recipe.overrides.batch_scale, 2);
  EXPECT_EQ(recipe.overrides.intra_op_threads, ThreadCount{ThreadCount::kOnePerPhysicalCore});
  EXPECT_EQ(recipe.overrides.dataloader_workers, ThreadCount{4});
  EXPECT_FALSE(recipe.overrides.allow_tf32.has_value());
  EXPECT_EQ(recipe.min_torch_version, "2.1");
  EXPECT_EQ(recipe.conflicts_with, std::vector<std::string>{"other"});
  EXPECT_EQ(recipe.source, "recipes/alloc-knob.json");
}

TEST(Recipe, ParsesARewrite) {
  const Recipe recipe = ParseRecipe(R"({"id": "g", "title": "t", "description": "d",
      "kind": "rewrite", "status": "planned", "preserves_semantics": true, "tolerance": "tf32",
      "devices": ["cpu", "cuda"], "rewrite": "gather-to-index"})",
                                    "g.json");
  EXPECT_EQ(recipe.kind, RecipeKind::kRewrite);
  EXPECT_EQ(recipe.status, RecipeStatus::kPlanned);
  EXPECT_EQ(recipe.tolerance, ToleranceClass::kTf32);
  EXPECT_EQ(recipe.rewrite, "gather-to-index");
}

TEST(Recipe, ParsesEverySdpaBackend) {
  for (const std::string& backend : SdpaBackendNames()) {
    const Recipe recipe = ParseRecipe(R"({"id": "s", "title": "t", "description": "d",
        "kind": "knob", "status": "ready", "preserves_semantics": true, "tolerance": "reordering",
        "devices": ["cuda"], "overrides": {"sdpa_backend": ")" + backend + R"("}})",
                                      "s.json");
    EXPECT_EQ(recipe.overrides.sdpa_backend, backend);
  }
  EXPECT_EQ(SdpaBackendNames().size(), 4u);
}

TEST(Recipe, ParsesEveryCompileMode) {
  for (const std::string& mode : CompileModeNames()) {
    const Recipe recipe = ParseRecipe(R"({"id": "m", "title": "t", "description": "d",
        "kind": "knob", "status": "ready", "preserves_semantics": true, "tolerance": "reordering",
        "devices": ["cuda"], "overrides": {"compile_mode": ")" + mode + R"("}})",
                                      "m.json");
    EXPECT_EQ(recipe.overrides.compile_mode, mode);
    EXPECT_FALSE(recipe.overrides.compile) << "a mode compiles without \"compile\"";
  }
  EXPECT_EQ(CompileModeNames().size(), 3u);
}

// activation-checkpointing: the instances to checkpoint, [] for those its findings name.
TEST(Recipe, ParsesTheModuleInstancesToCheckpoint) {
  const auto parse = [](const std::string& modules) {
    return ParseRecipe(R"({"id": "c", "title": "t", "description": "d", "kind": "knob",
        "status": "ready", "preserves_semantics": true, "tolerance": "reordering",
        "devices": ["cpu"], "overrides": {"checkpoint_modules": )" + modules + "}}",
                       "c.json")
        .overrides.checkpoint_modules;
  };
  EXPECT_EQ(parse(R"(["blocks.1", "head"])"), (std::vector<std::string>{"blocks.1", "head"}));
  EXPECT_EQ(parse("[]"), std::vector<std::string>{});
}

TEST(Recipe, DoorsAreParsedIntoTheEnumWithTheirDefaults) {
  EXPECT_EQ(ParseRecipe(kKnob, "recipes/alloc-knob.json").doors,
            (std::vector<Door>{Door::kModel, Door::kScript}))
      << "a knob without doors: both front doors";
  const Recipe rewrite = ParseRecipe(R"({"id": "g", "title": "t", "description": "d",
      "kind": "rewrite", "status": "ready", "preserves_semantics": true, "tolerance": "tf32",
      "devices": ["cpu"], "rewrite": "gather-to-index"})",
                                     "g.json");
  EXPECT_EQ(rewrite.doors, std::vector<Door>{Door::kModel}) << "a rewrite without doors: a model";
  const Recipe ddp = ParseRecipe(R"({"id": "d", "title": "t", "description": "d", "kind": "knob",
      "status": "ready", "preserves_semantics": false, "tolerance": "unchecked",
      "devices": ["cuda"], "overrides": {"ddp_static_graph": true}, "doors": ["ranks", "script"]})",
                                 "d.json");
  EXPECT_EQ(ddp.doors, (std::vector<Door>{Door::kRanks, Door::kScript}));
}

// A valid knob with `patch` merged in (RFC 7386: a null removes the field).
std::string PatchedKnob(const nlohmann::json& patch) {
  nlohmann::json recipe = nlohmann::json::parse(R"({
      "id": "x", "title": "t", "description": "d", "kind": "knob", "status": "ready",
      "preserves_semantics": false, "tolerance": "unchecked", "devices": ["cpu"],
      "overrides": {"deterministic": false}})");
  recipe.merge_patch(patch);
  return recipe.dump();
}

struct BadRecipe {
  const char* name;
  const char* patch;    // the one thing broken in an otherwise valid knob
  const char* message;  // what the one-line error must say after the file name
};

// Names the case in test output instead of dumping its bytes.
void PrintTo(const BadRecipe& bad, std::ostream* out) { *out << bad.name; }

const BadRecipe kBadRecipes[] = {
    {"MissingId", R"({"id": null})", "field 'id' is missing"},
    {"UnknownKind", R"({"kind": "knb"})",
     R"(field 'kind' must be one of "knob", "rewrite", got "knb")"},
    {"EnvValueNotString", R"({"env": {"OMP_NUM_THREADS": 4}})",
     "field 'env.OMP_NUM_THREADS' must be a string, got 4"},
    {"EnvNameInvalid", R"({"env": {"A=B": "1"}})",
     "field 'env.A=B' is not an environment variable name"},
    {"UnknownField", R"({"colour": "red"})", "field 'colour' is unknown; allowed: id, title,"},
    {"UnknownOverride", R"({"overrides": {"batch_size": 256}})",
     "field 'overrides.batch_size' is unknown; allowed: deterministic, batch_scale"},
    {"OverrideWrongType", R"({"overrides": {"deterministic": "no"}})",
     R"(field 'overrides.deterministic' must be true or false, got "no")"},
    {"BatchScaleOne", R"({"overrides": {"batch_scale": 1}})",
     "field 'overrides.batch_scale' must be an integer from 2 to 1000000, got 1"},
    {"SdpaBackendUnknown", R"({"overrides": {"sdpa_backend": "fastest"}})",
     R"(field 'overrides.sdpa_backend' must be one of "flash", "efficient", "cudnn", "math", )"
     R"(got "fastest")"},
    {"SdpaBackendNotString", R"({"overrides": {"sdpa_backend": 1}})",
     "field 'overrides.sdpa_backend' must be a string, got 1"},
    {"CompileModeUnknown", R"({"overrides": {"compile_mode": "max-autotune-no-cudagraphs"}})",
     R"(field 'overrides.compile_mode' must be one of "max-autotune", "reduce-overhead", )"
     R"("regional", got "max-autotune-no-cudagraphs")"},
    {"CompileModeWithoutCompiling",
     R"({"overrides": {"compile": false, "compile_mode": "regional"}})",
     R"(field 'overrides.compile_mode' compiles the model: "compile" must not be false beside it)"},
    {"CheckpointModulesNotAList", R"({"overrides": {"checkpoint_modules": "blocks.1"}})",
     "field 'overrides.checkpoint_modules' must be "},
    {"CheckpointModuleNotAPath", R"({"overrides": {"checkpoint_modules": ["blocks.1", 2]}})",
     "field 'overrides.checkpoint_modules[1]' must be a string, got 2"},
    {"KnobWithoutChange", R"({"overrides": null})",
     R"(field 'kind' is "knob", which must set "env" or "overrides")"},
    {"PreservingButUnchecked", R"({"preserves_semantics": true})",
     R"(field 'tolerance' must not be "unchecked" when "preserves_semantics" is true)"},
    {"UnknownRewrite", R"({"kind": "rewrite", "overrides": null, "rewrite": "fuse-everything"})",
     R"(field 'rewrite' must be one of "gather-to-index", "sdpa-attention", "crop-first", )"
     R"(got "fuse-everything")"},
    {"RewriteWithOverrides", R"({"kind": "rewrite", "rewrite": "gather-to-index"})",
     R"(field 'kind' is "rewrite", which changes the graph only)"},
    {"UnknownDevice", R"({"devices": ["tpu"]})",
     R"(field 'devices[0]' must be one of "cpu", "cuda", got "tpu")"},
    {"UnknownDoor", R"({"doors": ["model", "notebook"]})",
     R"(field 'doors[1]' must be one of "model", "script", "ranks", got "notebook")"},
    {"TraceIsNoRecipeDoor", R"({"doors": ["trace"]})",
     R"(field 'doors[0]' must be one of "model", "script", "ranks", got "trace")"},
    {"NoDoor", R"({"doors": []})", "field 'doors' must be a non-empty array, got []"},
    {"RewriteThroughAScript",
     R"({"kind": "rewrite", "overrides": null, "rewrite": "gather-to-index", "doors": ["script"]})",
     R"(field 'doors' must not name "script": a graph rewrite needs a TorchScript model)"},
    {"BadTorchVersion", R"({"requires": {"torch": "two"}})",
     R"(field 'requires.torch' must be a version such as "2.1", got "two")"},
    {"ConflictsWithItself", R"({"conflicts_with": ["x"]})",
     "field 'conflicts_with[0]' names the recipe itself"},
};

void ExpectOneLineError(const std::string& json, const std::string& expected) {
  try {
    ParseRecipe(json, "recipes/x.json");
    ADD_FAILURE() << "accepted a bad recipe: " << json;
  } catch (const RecipeError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("recipes/x.json: ", 0), 0u) << message;
    EXPECT_THAT(message, HasSubstr(expected));
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

class RecipeDiagnostics : public ::testing::TestWithParam<BadRecipe> {};

TEST_P(RecipeDiagnostics, NamesTheFileAndTheProblemOnOneLine) {
  ExpectOneLineError(PatchedKnob(nlohmann::json::parse(GetParam().patch)), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Recipe, RecipeDiagnostics, ::testing::ValuesIn(kBadRecipes),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Recipe, TextThatIsNotARecipeObjectIsRejected) {
  ExpectOneLineError(R"({"id": "x", )", "recipes/x.json: not valid JSON: ");
  ExpectOneLineError(R"(["x"])", "recipes/x.json: top level must be an object, got [\"x\"]");
  // A number beyond double is nlohmann's out_of_range, not a parse_error: it escaped once.
  ExpectOneLineError(R"({"id": "x", "kind": 1e999})",
                     "recipes/x.json: field 'kind' must be a number a double can hold, got 1e999");
}

TEST(Recipe, IdMustEqualTheFileName) {
  testing::ScratchDir dir;
  const std::string path =
      testing::WriteFile(dir / "tf32.json", PatchedKnob({{"id", "tf32-matmul"}}));
  try {
    LoadRecipe(path);
    FAIL() << "accepted an id that differs from the file name";
  } catch (const RecipeError& error) {
    EXPECT_EQ(std::string(error.what()),
              path + R"(: field 'id' must equal the file name "tf32", got "tf32-matmul")");
  }
}

TEST(Recipe, MissingFileIsAnErrorNamingIt) {
  testing::ScratchDir dir;
  try {
    LoadRecipe(dir / "absent.json");
    FAIL() << "loaded a file that does not exist";
  } catch (const RecipeError& error) {
    EXPECT_THAT(error.what(), HasSubstr(dir / "absent.json" + ": no such file"));
  }
}

TEST(Recipe, DirectoryLoadLeavesOutBadFilesAndUnknownConflicts) {
  testing::ScratchDir dir;
  testing::WriteFile(dir / "good.json", PatchedKnob({{"id", "good"}}));
  testing::WriteFile(dir / "pair.json",
                     PatchedKnob({{"id", "pair"}, {"conflicts_with", {"good"}}}));
  testing::WriteFile(dir / "typo.json", PatchedKnob({{"id", "typo"}, {"conflicts_with", {"god"}}}));
  testing::WriteFile(dir / "broken.json", "{");
  testing::WriteFile(dir / "notes.txt", "not a recipe");

  const RecipeSet set = LoadRecipeDir(dir.path());
  ASSERT_EQ(set.recipes.size(), 2u);
  EXPECT_EQ(set.recipes[0].id, "good");
  EXPECT_EQ(set.recipes[1].id, "pair");
  ASSERT_EQ(set.errors.size(), 2u);
  EXPECT_THAT(set.errors[0], HasSubstr("broken.json: not valid JSON"));
  EXPECT_THAT(set.errors[1],
              HasSubstr("typo.json: field 'conflicts_with' names \"god\", which is no recipe"));
}

TEST(Recipe, EveryShippedRecipeLoads) {
  const RecipeSet set = LoadRecipeDir(ADVISOR_RECIPES_DIR);
  for (const std::string& error : set.errors) ADD_FAILURE() << error;
  // The ids the rules name; each needs its file.
  for (const char* id : {"gather-to-index",     "deterministic-off",
                         "batch-size-x2",       "batch-size-x4",
                         "expandable-segments", "bf16-autocast",
                         "tf32-matmul",         "cudnn-benchmark",
                         "channels-last",       "sdpa-attention",
                         "cuda-graphs",         "fused-optimizer",
                         "pin-memory",          "dataloader-workers",
                         "intra-op-threads",    "sdpa-cudnn-backend",
                         "sdpa-flash-backend",  "ddp-bucket-10mb",
                         "ddp-bucket-100mb",    "ddp-gradient-as-bucket-view",
                         "ddp-static-graph",    "hf-sdpa-attention",
                         "torch-compile",       "torch-compile-max-autotune",
                         "torch-compile-reduce-overhead", "torch-compile-regional"}) {
    EXPECT_NE(FindRecipe(set.recipes, id), nullptr) << "no recipes/" << id << ".json";
  }
  // The worker applies these as workload step options (engine/model_candidate/knobs.cpp).
  for (const char* id : {"bf16-autocast", "cuda-graphs", "fused-optimizer", "batch-size-x4"}) {
    const Recipe* recipe = FindRecipe(set.recipes, id);
    ASSERT_NE(recipe, nullptr) << id;
    EXPECT_EQ(recipe->status, RecipeStatus::kReady) << id;
  }
}

}  // namespace
}  // namespace advisor
