// `advisor rules list` and `advisor rules check` as the CLI calls them.
#include <algorithm>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/rules/rules_commands.h"
#include "tests/rules/rule_test_support.h"

namespace advisor::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// Points FindDataDir("rules") at the source tree's rules for the test's lifetime.
class RulesCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("ADVISOR_RULES_DIR", ADVISOR_SOURCE_RULES_DIR, 1); }
  void TearDown() override { ::unsetenv("ADVISOR_RULES_DIR"); }

  ScratchDir dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(RulesCommandsTest, ListShowsBuiltinAndUserRules) {
  dir_.Write("mine.lua", "return {id = \"my-rule\", title = \"Mine\", check = function() end}");
  EXPECT_EQ(RulesListCommand({dir_.path()}, /*json=*/false, out_, err_), 0);
  EXPECT_EQ(err_.str(), "");
  const std::string table = out_.str();
  EXPECT_THAT(table, HasSubstr("ID"));
  EXPECT_THAT(table, HasSubstr("gather-backward"));
  EXPECT_THAT(table, HasSubstr("built-in  The backward of torch.gather is slow"));
  EXPECT_THAT(table, HasSubstr("gather_backward.lua"));
  EXPECT_THAT(table, HasSubstr("user      Mine"));
  EXPECT_THAT(table, HasSubstr(dir_.path() + "/mine.lua"));
}

TEST_F(RulesCommandsTest, ListAsJson) {
  EXPECT_EQ(RulesListCommand({}, /*json=*/true, out_, err_), 0);
  const nlohmann::json listed = nlohmann::json::parse(out_.str());
  ASSERT_EQ(listed.at("rules").size(), 41u);
  const nlohmann::json& first = listed.at("rules")[0];
  EXPECT_EQ(first.at("id"), "allocator-churn");
  EXPECT_EQ(first.at("title"), "The caching allocator keeps allocating");
  EXPECT_EQ(first.at("builtin"), true);
  EXPECT_THAT(first.at("file").get<std::string>(), HasSubstr("allocator_churn.lua"));
}

TEST_F(RulesCommandsTest, ListAsJsonReplacesInvalidUtf8InATitle) {
  dir_.Write("odd.lua", "return {id = \"odd\", title = \"T\\255\", check = function() end}");
  EXPECT_EQ(RulesListCommand({dir_.path()}, /*json=*/true, out_, err_), 0) << err_.str();
  const nlohmann::json listed = nlohmann::json::parse(out_.str());
  EXPECT_EQ(listed.at("rules").back().at("title"), "T\xef\xbf\xbd");
}

TEST_F(RulesCommandsTest, ListFailsOnBrokenUserRuleButListsTheRest) {
  dir_.Write("broken.lua", "return {id = \"broken\"}");
  EXPECT_EQ(RulesListCommand({dir_.path()}, false, out_, err_), 1);
  EXPECT_THAT(err_.str(), HasSubstr(dir_.path() + "/broken.lua:1: missing title"));
  EXPECT_THAT(out_.str(), HasSubstr("allocator-churn"));
}

TEST_F(RulesCommandsTest, CheckPassesAGoodRule) {
  const std::string file =
      dir_.Write("good.lua",
                 "return {id = \"good\", title = \"Good\", check = function(facts)\n"
                 "  if facts.gpu and facts.gpu.busy_fraction < 0.9 then\n"
                 "    return {{severity = 'low', message = 'm', evidence = "
                 "advisor.pct(facts.gpu.busy_fraction)}}\n"
                 "  end\n"
                 "end}");
  EXPECT_EQ(RulesCheckCommand(file, out_, err_), 0);
  EXPECT_EQ(err_.str(), "");
  EXPECT_EQ(out_.str(), "good  " + file + "\n1 rule loaded, 0 problems\n");
}

TEST_F(RulesCommandsTest, CheckCatchesARuleThatForgetsAFactMayBeNil) {
  const std::string file = dir_.Write(
      "careless.lua",
      "return {id = \"careless\", title = \"Careless\", check = function(facts)\n"
      "  if facts.gpu.busy_fraction < 0.5 then return {} end\n"
      "end}");
  EXPECT_EQ(RulesCheckCommand(file, out_, err_), 1);
  EXPECT_EQ(err_.str(), file + ":2: rule 'careless': attempt to index a nil value (field 'gpu') "
                               "(on sample facts with nothing optional measured)\n");
  EXPECT_THAT(out_.str(), HasSubstr("1 rule loaded, 1 problem\n"));
}

TEST_F(RulesCommandsTest, CheckCatchesMalformedFindings) {
  const std::string file = dir_.Write(
      "sloppy.lua",
      "return {id = \"sloppy\", title = \"Sloppy\", check = function(facts)\n"
      "  if facts.memory then return {{severity = 'urgent', message = 'm', evidence = 'e'}} end\n"
      "end}");
  EXPECT_EQ(RulesCheckCommand(file, out_, err_), 1);
  EXPECT_THAT(err_.str(), HasSubstr(file + ":1: rule 'sloppy': finding 1: severity must be"));
  EXPECT_THAT(err_.str(), HasSubstr("(on sample facts with everything measured)"));
  EXPECT_THAT(err_.str(), Not(HasSubstr("nothing optional")));
}

// Each run of the rule (one per sample) ends at the time limit with the file and line named.
TEST_F(RulesCommandsTest, CheckEndsARuleThatRunsForHours) {
  const std::string file = dir_.Write(
      "slow.lua",
      "return {id = \"slow\", title = \"Slow\", check = function(facts)\n"
      "  local a, b = string.rep('x', 15 << 20), string.rep('x', 15 << 20)\n"
      "  while a == b do end\n"
      "end}");
  EXPECT_EQ(RulesCheckCommand(file, out_, err_), 1);
  // Which line the clock stops depends on the machine's load: under AddressSanitizer on a busy
  // 2-core machine the string.rep calls outlasted the second.
  EXPECT_THAT(err_.str(), HasSubstr(file + ":"));
  EXPECT_THAT(err_.str(), ContainsRegex("slow.lua:[0-9]+: rule 'slow': time limit of 1000 ms"));
  EXPECT_THAT(out_.str(), HasSubstr("1 rule loaded, 2 problems\n"));
}

TEST_F(RulesCommandsTest, CheckReportsLoadProblemsOfAFolder) {
  dir_.Write("a.lua", "return {id = \"a\", title = \"A\", check = function() end}");
  dir_.Write("b.lua", "return {id = \"a\", title = \"B\", check = function() end}");
  EXPECT_EQ(RulesCheckCommand(dir_.path(), out_, err_), 1);
  EXPECT_THAT(err_.str(), HasSubstr(dir_.path() + "/b.lua:1: duplicate id 'a'"));
  EXPECT_THAT(out_.str(), HasSubstr("1 rule loaded, 1 problem\n"));
}

// docs/rules.md: a file with a problem is left out and the others load; a run lists every problem.
TEST_F(RulesCommandsTest, RunLeavesOutEachBrokenRuleAndListsEveryProblem) {
  dir_.Write("a_syntax.lua", "return {id = \"a\",, }");
  dir_.Write("b_fine.lua", "return {id = \"fine\", title = \"Fine\", check = function() end}");
  dir_.Write("c_fields.lua", "return {id = \"Bad_Id\", titel = \"T\", check = 1}");
  std::vector<std::string> data_quality;
  const RuleSet rules = LoadRulesForRun({dir_.path(), dir_.path() + "/none"}, err_, data_quality);

  std::vector<std::string> ids;
  for (const RuleInfo& rule : rules.rules()) ids.push_back(rule.id);
  EXPECT_THAT(ids, ::testing::Contains("fine"));
  EXPECT_THAT(ids, ::testing::Contains("allocator-churn")) << "the built-in rules load too";
  EXPECT_THAT(ids, Not(::testing::Contains("a")));

  const std::string printed = err_.str();
  EXPECT_THAT(printed, HasSubstr("advisor: rule left out: " + dir_.path() + "/a_syntax.lua:1:"));
  EXPECT_THAT(printed, HasSubstr(dir_.path() + "/c_fields.lua:1: id 'Bad_Id' is not kebab-case"));
  EXPECT_THAT(printed, HasSubstr(dir_.path() + "/c_fields.lua:1: check must be a function"));
  EXPECT_THAT(printed, HasSubstr(dir_.path() + "/c_fields.lua:1: unknown field 'titel'"));
  EXPECT_THAT(printed, HasSubstr(dir_.path() + "/none: no such file or folder"));
  ASSERT_EQ(data_quality.size(), 6u) << printed;
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 6);
  EXPECT_THAT(data_quality[0], ::testing::StartsWith("rule left out: " + dir_.path()));
}

TEST_F(RulesCommandsTest, CheckOfAMissingPathFails) {
  EXPECT_EQ(RulesCheckCommand(dir_.path() + "/none.lua", out_, err_), 1);
  EXPECT_EQ(err_.str(), dir_.path() + "/none.lua: no such file or folder\n");
}

}  // namespace
}  // namespace advisor::testing
