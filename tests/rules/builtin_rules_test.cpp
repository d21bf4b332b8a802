// The built-in rules against fixture facts (fixtures/cases/*.json: a base fact table from
// fixtures/base, a JSON merge patch, and the exact findings expected). Each rule has cases where
// it fires and near misses where it must not; the clean cases expect nothing at all.
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/facts/facts.h"
#include "engine/facts/sample_reports.h"
#include "engine/rules/rules_commands.h"
#include "tests/rules/rule_test_support.h"

namespace advisor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const fs::path kFixtures = ADVISOR_RULE_FIXTURES_DIR;

json ReadJson(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kFixtures / "cases")) {
    names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Where the case gives `field`: a number, the rule's estimate to 0.05 (MB or ms); null, the rule
// makes none.
void ExpectEstimate(const json& want, const char* field, const std::optional<double>& estimate,
                    const std::string& rule) {
  const auto expected = want.find(field);
  if (expected == want.end()) return;
  if (expected->is_null()) {
    EXPECT_FALSE(estimate) << rule << " " << field;
  } else {
    EXPECT_NEAR(estimate.value_or(-1), expected->get<double>(), 0.05) << rule << " " << field;
  }
}

json CaseFile(const std::string& name) { return ReadJson(kFixtures / "cases" / (name + ".json")); }

json CaseFacts(const json& test_case) {
  json facts = ReadJson(kFixtures / "base" / (test_case.at("base").get<std::string>() + ".json"));
  facts.merge_patch(test_case.at("patch"));
  return facts;
}

const RuleSet& BuiltinRules() {
  static const RuleSet rules = [] {
    std::vector<RuleDiagnostic> errors;
    RuleSet loaded = RuleSet::Load({ADVISOR_SOURCE_RULES_DIR}, errors);
    EXPECT_THAT(Lines(errors), IsEmpty());
    return loaded;
  }();
  return rules;
}

// What identifies a finding in a case file: rule, severity, path and recipe.
std::string Key(const std::string& rule, const std::string& severity, const std::string& path,
                const std::string& recipe) {
  return rule + " | " + severity + " | path '" + path + "' | recipe '" + recipe + "'";
}

class BuiltinRuleCase : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinRuleCase, FiresExactlyTheExpectedFindings) {
  const json test_case = CaseFile(GetParam());
  const RuleRun run = RunRules(BuiltinRules(), CaseFacts(test_case));
  EXPECT_THAT(run.errors, IsEmpty());

  std::multiset<std::string> actual;
  for (const Finding& finding : run.findings) {
    actual.insert(Key(finding.rule, SeverityName(finding.severity), finding.path, finding.recipe));
  }
  std::multiset<std::string> expected;
  for (const json& want : test_case.at("expect")) {
    expected.insert(Key(want.at("rule"), want.at("severity"), want.at("path"), want.at("recipe")));
  }
  EXPECT_EQ(actual, expected) << test_case.at("description").get<std::string>();

  for (const json& want : test_case.at("expect")) {
    for (const Finding& finding : run.findings) {
      // A rule may name several instances, each its own finding.
      if (finding.rule != want.at("rule") || finding.recipe != want.at("recipe") ||
          finding.path != want.at("path")) {
        continue;
      }
      EXPECT_FALSE(finding.message.empty());
      for (const json& quoted : want.value("evidence_contains", json::array())) {
        EXPECT_THAT(finding.evidence, HasSubstr(quoted.get<std::string>())) << finding.rule;
      }
      for (const json& quoted : want.value("message_contains", json::array())) {
        EXPECT_THAT(finding.message, HasSubstr(quoted.get<std::string>())) << finding.rule;
      }
      // What the finding must not say: a reason that fits a near case, not this one.
      for (const json& quoted : want.value("message_excludes", json::array())) {
        EXPECT_THAT(finding.message, Not(HasSubstr(quoted.get<std::string>()))) << finding.rule;
      }
      ExpectEstimate(want, "expected_saving_mb", finding.expected_saving_mb, finding.rule);
      ExpectEstimate(want, "expected_gain_ms", finding.expected_gain_ms, finding.rule);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BuiltinRuleCase, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(BuiltinRules, EveryRuleFiresInSomeCase) {
  std::set<std::string> fired;
  for (const std::string& name : CaseNames()) {
    const json test_case = CaseFile(name);
    for (const json& want : test_case.at("expect")) fired.insert(want.at("rule"));
  }
  ASSERT_FALSE(BuiltinRules().rules().empty());
  for (const RuleInfo& rule : BuiltinRules().rules()) {
    EXPECT_EQ(fired.count(rule.id), 1u) << rule.id << " has no case where it fires";
  }
}

TEST(BuiltinRules, NameOnlyRecipesThatExist) {
  const std::set<std::string> recipes = {
      "",           "gather-to-index", "deterministic-off", "keep-freed-memory",
      "batch-size-x2", "batch-size-x4",
      "expandable-segments", "bf16-autocast", "tf32-matmul", "cudnn-benchmark",
      "channels-last", "sdpa-attention", "cuda-graphs", "fused-optimizer",
      "pin-memory", "dataloader-workers", "intra-op-threads", "sdpa-cudnn-backend",
      "sdpa-flash-backend", "torch-compile", "ddp-bucket-10mb", "ddp-bucket-100mb",
      "ddp-gradient-as-bucket-view", "ddp-static-graph", "ddp-no-sync", "fsdp-shard-grad-op",
      "crop-first", "persistent-workers", "activation-checkpointing", "hf-sdpa-attention",
      "torch-compile-max-autotune", "torch-compile-reduce-overhead", "torch-compile-regional"};
  for (const std::string& name : CaseNames()) {
    const RuleRun run = RunRules(BuiltinRules(), CaseFacts(CaseFile(name)));
    for (const Finding& finding : run.findings) {
      EXPECT_EQ(recipes.count(finding.recipe), 1u) << finding.rule << ": " << finding.recipe;
    }
  }
}

TEST(BuiltinRules, PassRulesCheck) {
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RulesCheckCommand(ADVISOR_SOURCE_RULES_DIR, out, err), 0);
  EXPECT_EQ(err.str(), "");
  EXPECT_THAT(out.str(), HasSubstr("41 rules loaded, 0 problems"));
}

// Fixture facts must look like what BuildFacts produces, or a misspelt field would make a rule
// silently not fire. Names under modules, has_op and allocator options are data, not schema.
void CollectFields(const json& value, const std::string& path, std::set<std::string>& fields) {
  static const std::set<std::string> kKeyedByData = {"modules", "modules.*.has_op",
                                                     "modules.*.op_input_elements",
                                                     "run.allocator.options",
                                                     "run.host_allocator.env"};
  if (value.is_object()) {
    for (auto member = value.begin(); member != value.end(); ++member) {
      const std::string name = kKeyedByData.count(path) ? "*" : member.key();
      const std::string field = path.empty() ? name : path + "." + name;
      fields.insert(field);
      CollectFields(*member, field, fields);
    }
  } else if (value.is_array()) {
    for (const json& element : value) CollectFields(element, path + "[]", fields);
  }
}

TEST(FixtureFacts, UseOnlyFieldsThatFactsHave) {
  std::set<std::string> documented = {
      // Documented in docs/facts.md, read by rules, not filled by BuildFacts yet.
      "run.memory_format"};
  const RunEnvironment environment{"max_split_size_mb:128,garbage_collection_threshold:0.6",
                                   {{"MALLOC_MMAP_MAX_", "0"}}};
  CollectFields(BuildFacts(SampleReportAllMeasured(), environment), "", documented);
  CollectFields(BuildFacts(SampleReportNothingMeasured()), "", documented);

  for (const std::string& name : CaseNames()) {
    std::set<std::string> used;
    CollectFields(CaseFacts(CaseFile(name)), "", used);
    for (const std::string& field : used) {
      EXPECT_EQ(documented.count(field), 1u) << name << " uses undocumented field " << field;
    }
  }
}

}  // namespace
}  // namespace advisor::testing
