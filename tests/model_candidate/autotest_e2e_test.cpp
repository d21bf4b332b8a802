// `advisor bisect --autotest` end to end: a candidate whose worker crashes is reported as failed,
// and advisor still writes its report. The crashing recipe and the rule that names it are written
// by the test: a recipe whose env preloads a library that aborts (abort_on_load.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/model_candidate/worker_models.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;

constexpr const char* kCrashingRecipe = R"({
  "id": "test-abort-on-load",
  "title": "Test recipe whose worker aborts",
  "description": "Preloads a library that calls abort() when the worker starts.",
  "kind": "knob",
  "status": "ready",
  "preserves_semantics": false,
  "tolerance": "unchecked",
  "devices": ["cpu"],
  "env": {"LD_PRELOAD": ")" ABORT_ON_LOAD_LIBRARY R"("}
})";

constexpr const char* kRuleNamingIt = R"(-- Names the crashing test recipe, whatever the facts.
return {
  id = "test-crashing-candidate",
  title = "Names a recipe whose worker crashes",
  description = "Used by tests/model_candidate/autotest_e2e_test.cpp only.",
  check = function(facts)
    return {{ severity = "low", message = "Try the crashing recipe.", evidence = "always",
              recipe = "test-abort-on-load" }}
  end,
}
)";

const nlohmann::json* FixOf(const nlohmann::json& report, const std::string& recipe) {
  for (const nlohmann::json& fix : report.at("fixes")) {
    if (fix.at("recipe") == recipe) return &fix;
  }
  return nullptr;
}

TEST(AutotestEndToEnd, SurvivesACrashingCandidateAndReportsItAsFailed) {
  testing::ScratchDir dir;
  std::filesystem::create_directories(dir / "recipes");
  std::filesystem::create_directories(dir / "rules");
  std::ofstream(dir / "recipes/test-abort-on-load.json") << kCrashingRecipe;
  std::ofstream(dir / "rules/crashing_candidate.lua") << kRuleNamingIt;

  const ProcessOutcome outcome =
      testing::RunAdvisor({"bisect", testing::Models().gather, "--autotest", "--out",
                           dir / "report", "--rules", dir / "rules", "--warmup", "1", "--steps",
                           "2", "--max-depth", "2", "--autotest-rounds", "5"},
                          {{"ADVISOR_RECIPES_DIR", dir / "recipes"}});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;

  std::ifstream file(dir / "report/report.json");
  const nlohmann::json report = nlohmann::json::parse(file);
  const nlohmann::json* crashed = FixOf(report, "test-abort-on-load");
  ASSERT_NE(crashed, nullptr) << report.at("fixes").dump(2);
  EXPECT_EQ(crashed->at("status"), "failed");
  EXPECT_THAT(crashed->at("detail").get<std::string>(),
              HasSubstr("candidate round 1/5: killed by signal 6"));
  // Recipes the built-in rules name are not in this recipe folder: skipped, not failed.
  for (const nlohmann::json& fix : report.at("fixes")) {
    if (&fix != crashed) {
      EXPECT_EQ(fix.at("status"), "skipped") << fix.dump();
    }
  }
}

}  // namespace
}  // namespace advisor
