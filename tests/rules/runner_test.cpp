// Running rules: findings are validated field by field and ranked; bad output costs only the
// rule that produced it, with a diagnostic naming the check function's line.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/rules/finding_reader.h"
#include "tests/rules/rule_test_support.h"

namespace advisor::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class RunnerTest : public ::testing::Test {
 protected:
  // A rule whose check (on line 2) returns `findings` (a Lua expression).
  RuleRun Returning(const std::string& findings) {
    return RunOneRule(dir_,
                      "return {id = \"r\", title = \"R\",\n"
                      "  check = function(facts) return " + findings + " end}",
                      MinimalFacts());
  }

  ScratchDir dir_;
};

TEST_F(RunnerTest, FindingFieldsReachTheFinding) {
  const RuleRun run = Returning(R"({{severity = "high", path = "encoder", op = "aten::gather",
      message = "m", evidence = "e", recipe = "gather-to-index", expected_gain_ms = 2.5}})");
  ASSERT_THAT(run.errors, IsEmpty());
  ASSERT_EQ(run.findings.size(), 1u);
  const Finding& finding = run.findings[0];
  EXPECT_EQ(finding.rule, "r");
  EXPECT_EQ(finding.severity, Severity::kHigh);
  EXPECT_EQ(finding.path, "encoder");
  EXPECT_EQ(finding.op, "aten::gather");
  EXPECT_EQ(finding.message, "m");
  EXPECT_EQ(finding.evidence, "e");
  EXPECT_EQ(finding.recipe, "gather-to-index");
  EXPECT_EQ(finding.expected_gain_ms, 2.5);
}

TEST_F(RunnerTest, OptionalFieldsDefault) {
  const RuleRun run = Returning(R"({{severity = "low", message = "m", evidence = "e"}})");
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].path, "");
  EXPECT_EQ(run.findings[0].recipe, "");
  EXPECT_FALSE(run.findings[0].expected_gain_ms.has_value());
}

TEST_F(RunnerTest, AFindingNamesTheUsersLineItIsAbout) {
  RuleRun run = Returning(R"lua({{severity = "low", message = "m", evidence = "e",
      source = {file = "/home/me/train.py", line = 43, text = "grown = F.conv2d(mask, k)"}}})lua");
  ASSERT_THAT(run.errors, IsEmpty());
  ASSERT_EQ(run.findings.size(), 1u);
  ASSERT_TRUE(run.findings[0].source.has_value());
  EXPECT_EQ(run.findings[0].source->file, "/home/me/train.py");
  EXPECT_EQ(run.findings[0].source->line, 43);
  EXPECT_EQ(run.findings[0].source->text, "grown = F.conv2d(mask, k)");

  // A facts table passes through as it is (the input stage's pieces carry their source).
  nlohmann::json facts = MinimalFacts();
  facts["data"] = nlohmann::json::parse(R"({"stage": {"pieces": [
      {"source": {"file": "/home/me/train.py", "line": 39, "text": ""}}]}})");
  run = RunOneRule(dir_,
                   "return {id = \"r\", title = \"R\",\n"
                   "  check = function(facts) return {{severity = \"low\", message = \"m\", "
                   "evidence = \"e\", source = facts.data.stage.pieces[1].source}} end}",
                   facts);
  ASSERT_THAT(run.errors, IsEmpty());
  ASSERT_EQ(run.findings.size(), 1u);
  ASSERT_TRUE(run.findings[0].source.has_value());
  EXPECT_EQ(run.findings[0].source->line, 39);
}

TEST_F(RunnerTest, ABadSourceDropsItsFinding) {
  const RuleRun run = Returning(R"({
      {severity = "low", message = "m", evidence = "e", source = "train.py:3"},
      {severity = "low", message = "m", evidence = "e", source = {file = "", line = 3}},
      {severity = "low", message = "m", evidence = "e", source = {file = "t.py", line = 0}},
      {severity = "low", message = "m", evidence = "e", source = {file = "t.py", line = 2, text = 5}},
      {severity = "low", message = "m", evidence = "e",
       source = setmetatable({}, {__index = function() error("boom") end})},
      {severity = "low", message = "kept", evidence = "e", source = {file = "t.py", line = 2}}})");
  EXPECT_THAT(run.errors,
              ElementsAre(HasSubstr("finding 1: source must be a table {file, line, text}, not a "
                                    "string"),
                          HasSubstr("finding 2: source.file must be a path"),
                          HasSubstr("finding 3: source.line must be an integer >= 1"),
                          HasSubstr("finding 4: source.text must be a string"),
                          HasSubstr("finding 5: source.file must be a path")));
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].source->text, "");
}

TEST_F(RunnerTest, NilMeansNoFindings) {
  const RuleRun run = Returning("nil");
  EXPECT_THAT(run.errors, IsEmpty());
  EXPECT_THAT(run.findings, IsEmpty());
}

TEST_F(RunnerTest, WrongReturnTypesAreReported) {
  EXPECT_THAT(Returning("42").errors,
              ElementsAre(dir_.path() + "/rule.lua:2: rule 'r': check must return a list of "
                                        "findings (a table) or nil, not a number"));
  EXPECT_THAT(Returning(R"({severity = "low", message = "m", evidence = "e"})").errors,
              ElementsAre(HasSubstr("check returned a table with named fields; return a list")));
  EXPECT_THAT(Returning(R"({"high"})").errors,
              ElementsAre(HasSubstr("rule 'r': finding 1: is a string, not a table")));
  EXPECT_THAT(Returning("function() end").errors,
              ElementsAre(HasSubstr("not a function")));
}

TEST_F(RunnerTest, BadFindingFieldsDropOnlyThatFinding) {
  const RuleRun run = Returning(R"({
      {sevrity = "high", message = "m", evidence = "e"},
      {severity = "critical", message = "m", evidence = "e"},
      {severity = "low", message = "", evidence = "e"},
      {severity = "low", message = "m"},
      {severity = "low", message = "m", evidence = "e", recipe = "Fix It"},
      {severity = "low", message = "m", evidence = "e", expected_gain_ms = -1},
      {severity = "low", message = "m", evidence = "e", path = 3},
      {severity = "medium", message = "kept", evidence = "e"}})");
  EXPECT_THAT(run.errors,
              ElementsAre(HasSubstr("finding 1: unknown field 'sevrity'"),
                          HasSubstr("finding 2: severity must be \"high\", \"medium\" or "
                                    "\"low\", not 'critical'"),
                          HasSubstr("finding 3: message must not be empty"),
                          HasSubstr("finding 4: missing evidence"),
                          HasSubstr("finding 5: recipe must be a recipe id"),
                          HasSubstr("finding 6: expected_gain_ms must be finite and >= 0"),
                          HasSubstr("finding 7: path must be a string, not a number")));
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].message, "kept");
}

TEST_F(RunnerTest, TooManyFindingsAreCapped) {
  const RuleRun run = Returning(R"((function()
      local list = {}
      for i = 1, 50 do list[i] = {severity = "low", message = "m" .. i, evidence = "e"} end
      return list
    end)())");
  EXPECT_THAT(run.errors, ElementsAre(HasSubstr("check returned 50 findings; only the first 20 "
                                                "are kept")));
  EXPECT_EQ(run.findings.size(), kMaxFindingsPerRule);
}

TEST_F(RunnerTest, HelpersAreAvailable) {
  const RuleRun run = Returning(R"({{severity = advisor.severity(0.3, 0.2, 0.1),
      message = advisor.ms(12.345) .. " " .. advisor.ms(0.5) .. " " .. advisor.pct(0.421),
      evidence = string.format("%.1f %d %s", advisor.sum_ops(facts.ops,
          advisor.set{"aten::mm", "aten::add"}), select(2, advisor.sum_ops(facts.ops,
          advisor.set{"aten::mm"})), advisor.names(facts.ops, 1))}})");
  ASSERT_THAT(run.errors, IsEmpty());
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].severity, Severity::kHigh);
  EXPECT_EQ(run.findings[0].message, "12.3 ms 0.50 ms 42%");
  EXPECT_EQ(run.findings[0].evidence, "4.0 4 aten::mm and 1 more");
}

TEST_F(RunnerTest, HasFragmentMatchesPlainSubstrings) {
  const RuleRun run = Returning(R"({{severity = "low", message = "m",
      evidence = tostring(advisor.has_fragment("NVIDIA H100 80GB HBM3", {"A100", "H100"})) .. " "
          .. tostring(advisor.has_fragment("Tesla V100", {"A100", "H100"})) .. " "
          .. tostring(advisor.has_fragment("a.b", {"%."}))}})");
  ASSERT_THAT(run.errors, IsEmpty());
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].evidence, "true false false");
}

TEST_F(RunnerTest, CostliestModuleWithOpPicksTheCostliestCaller) {
  nlohmann::json facts = MinimalFacts();
  facts["modules"]["decoder"] = {{"path", "decoder"}, {"type", "Decoder"}, {"measured", true},
                                 {"ms", 9.0}, {"has_op", {{"aten::gather", true}}}};
  facts["modules"]["head"] = {{"path", "head"}, {"type", "Head"}, {"measured", true},
                              {"ms", 20.0}, {"has_op", {{"aten::mm", true}}}};
  const RuleRun run = RunOneRule(dir_, R"(return {id = "r", title = "R",
      check = function(facts)
        local gather, gather_ms = advisor.costliest_module_with_op(facts.modules, "aten::gather")
        local none, none_ms = advisor.costliest_module_with_op(facts.modules, "aten::bmm")
        return {{severity = "low", message = "m",
                 evidence = string.format("%s %.0f [%s] %.0f", gather, gather_ms, none, none_ms)}}
      end})",
                                 facts);
  ASSERT_THAT(run.errors, IsEmpty());
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].evidence, "decoder 9 [] 0");
}

TEST(RankFindings, SeverityThenExpectedGainThenRuleOrder) {
  const auto make = [](const char* rule, Severity severity, std::optional<double> gain) {
    Finding finding;
    finding.rule = rule;
    finding.severity = severity;
    finding.expected_gain_ms = gain;
    return finding;
  };
  std::vector<Finding> findings = {
      make("low", Severity::kLow, 100.0),        make("medium-no-gain", Severity::kMedium, {}),
      make("medium-small", Severity::kMedium, 1.0), make("high", Severity::kHigh, 0.5),
      make("medium-big", Severity::kMedium, 9.0),   make("medium-no-gain-2", Severity::kMedium, {}),
  };
  RankFindings(findings);
  std::vector<std::string> order;
  for (const Finding& finding : findings) order.push_back(finding.rule);
  EXPECT_THAT(order, ElementsAre("high", "medium-big", "medium-small", "medium-no-gain",
                                 "medium-no-gain-2", "low"));

  // Advice the run's torch cannot take comes after all it can, whatever its severity.
  findings.front().needs_torch = "2.1";
  RankFindings(findings);
  EXPECT_EQ(findings.back().rule, "high");
}

TEST(RunRules, FindingsOfAllRulesAreRanked) {
  ScratchDir dir;
  dir.Write("a.lua", R"(return {id = "a", title = "A", check = function()
    return {{severity = "low", message = "a", evidence = "e"}} end})");
  dir.Write("b.lua", R"(return {id = "b", title = "B", check = function()
    return {{severity = "high", message = "b", evidence = "e", expected_gain_ms = 1}} end})");
  std::vector<RuleDiagnostic> errors;
  const RuleRun run = RunRules(RuleSet::Load({dir.path()}, errors), MinimalFacts());
  ASSERT_EQ(run.findings.size(), 2u);
  EXPECT_EQ(run.findings[0].rule, "b");
  EXPECT_EQ(run.findings[1].rule, "a");
}

TEST(Severity, NamesRoundTrip) {
  for (Severity severity : {Severity::kLow, Severity::kMedium, Severity::kHigh}) {
    EXPECT_EQ(ParseSeverity(SeverityName(severity)), severity);
  }
  EXPECT_STREQ(SeverityName(Severity::kMedium), "medium");
  EXPECT_FALSE(ParseSeverity("High").has_value());
}

}  // namespace
}  // namespace advisor::testing
