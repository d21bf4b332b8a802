// Loading is staged (read, compile and run, validate, de-duplicate); every problem names the
// file and the line of the rule table or of the Lua error.
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/rules/rule_test_support.h"

namespace advisor::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class LoaderTest : public ::testing::Test {
 protected:
  // Loads `text` as `name`; returns the diagnostics.
  std::vector<RuleDiagnostic> Load(const std::string& text, const std::string& name = "r.lua") {
    std::vector<RuleDiagnostic> errors;
    rules_ = RuleSet::Load({dir_.Write(name, text)}, errors);
    return errors;
  }

  ScratchDir dir_;
  RuleSet rules_;
};

TEST_F(LoaderTest, ValidRuleLoadsWithItsInfo) {
  EXPECT_THAT(Load("-- comment\n"
                   "return {\n"
                   "  id = \"slow-thing\",\n"
                   "  title = \"Slow thing\",\n"
                   "  description = \"Finds slow things.\",\n"
                   "  check = function(facts) return {} end,\n"
                   "}\n"),
              IsEmpty());
  ASSERT_EQ(rules_.rules().size(), 1u);
  const RuleInfo& rule = rules_.rules()[0];
  EXPECT_EQ(rule.id, "slow-thing");
  EXPECT_EQ(rule.title, "Slow thing");
  EXPECT_EQ(rule.description, "Finds slow things.");
  EXPECT_EQ(rule.file, dir_.path() + "/r.lua");
  EXPECT_FALSE(rule.builtin);
  EXPECT_EQ(rule.line, 2);
}

TEST_F(LoaderTest, MissingIdNamesTheReturnLine) {
  EXPECT_THAT(Lines(Load("local x = 1\n\nreturn {\n  title = \"T\",\n"
                         "  check = function() end,\n}\n")),
              ElementsAre(dir_.path() +
                          "/r.lua:3: missing id: every rule needs a unique kebab-case id"));
  EXPECT_THAT(rules_.rules(), IsEmpty());
}

TEST_F(LoaderTest, MissingTitleAndCheck) {
  EXPECT_THAT(Lines(Load("return {id = \"x\"}")), ElementsAre(HasSubstr("r.lua:1: missing title"),
                                                              HasSubstr("r.lua:1: missing check")));
}

TEST_F(LoaderTest, CheckNotAFunction) {
  EXPECT_THAT(Lines(Load("return {\n id = \"x\", title = \"T\",\n check = \"later\",\n}")),
              ElementsAre(HasSubstr("r.lua:1: check must be a function(facts) that returns a "
                                    "list of findings, not a string")));
}

TEST_F(LoaderTest, ProblemsPointAtTheReturnStatementNotAtReturnsInsideCheck) {
  EXPECT_THAT(Lines(Load("local M = {}\n"
                         "return {\n"
                         "  title = \"T\",\n"
                         "  check = function(facts)\n"
                         "    return {}\n"
                         "  end,\n"
                         "}\n")),
              ElementsAre(HasSubstr("r.lua:2: missing id")));
  EXPECT_THAT(Lines(Load("local rule = {title = \"T\", check = function() end}\n"
                         "do\n"
                         "  return rule\n"
                         "end\n")),
              ElementsAre(HasSubstr("r.lua:3: missing id")));
}

TEST_F(LoaderTest, IdMustBeKebabCase) {
  for (const char* id : {"Slow_Thing", "slow--thing", "-slow", "slow-", "", "slöw"}) {
    EXPECT_THAT(Lines(Load(std::string("return {id = \"") + id +
                           "\", title = \"T\", check = function() end}")),
                ElementsAre(HasSubstr("is not kebab-case")))
        << id;
  }
  EXPECT_THAT(Lines(Load("return {id = 7, title = \"T\", check = function() end}")),
              ElementsAre(HasSubstr("id must be a string, not a number")));
}

TEST_F(LoaderTest, UnknownFieldsAreReported) {
  EXPECT_THAT(Lines(Load("return {id = \"x\", title = \"T\", check = function() end,\n"
                         "  severity = \"high\"}")),
              ElementsAre(HasSubstr("unknown field 'severity' in the rule table")));
  EXPECT_THAT(Lines(Load("return {id = \"x\", title = \"T\", check = function() end, 5}")),
              ElementsAre(HasSubstr("the rule table has a number key")));
}

TEST_F(LoaderTest, FileMustReturnATable) {
  EXPECT_THAT(Lines(Load("local rule = {id = \"x\"}\n")),
              ElementsAre(HasSubstr("r.lua:1: the file must return the rule table")));
  EXPECT_THAT(Lines(Load("return 42\n")),
              ElementsAre(HasSubstr("r.lua:1: the file must return the rule table {id = \"...\", "
                                    "title = \"...\", check = function(facts) ... end}, not a "
                                    "number")));
}

TEST_F(LoaderTest, SyntaxErrorNamesItsLine) {
  EXPECT_THAT(Lines(Load("return {\n  id = \"x\",\n  title = = \"T\",\n}\n")),
              ElementsAre(dir_.path() + "/r.lua:3: unexpected symbol near '='"));
}

TEST_F(LoaderTest, RuntimeErrorWhileLoadingNamesItsLine) {
  EXPECT_THAT(Lines(Load("local t = nil\nlocal x = t.field\nreturn {}")),
              ElementsAre(dir_.path() + "/r.lua:2: attempt to index a nil value (local 't')"));
}

TEST_F(LoaderTest, DuplicateIdNamesBothFiles) {
  const std::string first =
      dir_.Write("a.lua", "return {id = \"same\", title = \"A\", check = function() end}");
  dir_.Write("b.lua", "\n\nreturn {id = \"same\", title = \"B\", check = function() end}");
  std::vector<RuleDiagnostic> errors;
  const RuleSet rules = RuleSet::Load({dir_.path()}, errors);
  EXPECT_THAT(Lines(errors), ElementsAre(dir_.path() + "/b.lua:3: duplicate id 'same': " +
                                         first + ":1 already defines it"));
  ASSERT_EQ(rules.rules().size(), 1u);
  EXPECT_EQ(rules.rules()[0].title, "A");
}

TEST_F(LoaderTest, FolderLoadsLuaFilesInNameOrderAndSkipsOthers) {
  dir_.Write("b.lua", "return {id = \"b\", title = \"B\", check = function() end}");
  dir_.Write("a.lua", "return {id = \"a\", title = \"A\", check = function() end}");
  dir_.Write("notes.txt", "not a rule");
  std::vector<RuleDiagnostic> errors;
  const RuleSet rules = RuleSet::Load({dir_.path()}, errors);
  EXPECT_THAT(errors, IsEmpty());
  ASSERT_EQ(rules.rules().size(), 2u);
  EXPECT_EQ(rules.rules()[0].id, "a");
  EXPECT_EQ(rules.rules()[1].id, "b");
}

TEST_F(LoaderTest, MissingPathsAndEmptyFoldersAreReported) {
  std::vector<RuleDiagnostic> errors;
  RuleSet::Load({dir_.path() + "/nope", dir_.path()}, errors);
  EXPECT_THAT(Lines(errors), ElementsAre(dir_.path() + "/nope: no such file or folder",
                                         dir_.path() + ": no .lua rule files in this folder"));
}

// A rule file that cannot be read is named with the reason, never passed over in silence.
TEST_F(LoaderTest, SymbolicLinkLoopsAndPipesAreNamedAsSuch) {
  const std::string loop = dir_.path() + "/loop.lua";
  ASSERT_EQ(::symlink(loop.c_str(), loop.c_str()), 0);
  std::vector<RuleDiagnostic> errors;
  RuleSet::Load({dir_.path(), loop}, errors);
  EXPECT_THAT(Lines(errors), ElementsAre(loop + ": is a symbolic link loop",
                                         loop + ": is a symbolic link loop"));

  const std::string dangling = dir_.path() + "/dangling";
  ASSERT_EQ(::symlink((dir_.path() + "/gone").c_str(), dangling.c_str()), 0);
  const std::string pipe = dir_.path() + "/pipe.lua";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  errors.clear();
  RuleSet::Load({dangling, pipe}, errors);
  EXPECT_THAT(Lines(errors),
              ElementsAre(dangling + ": is a symbolic link to a missing file",
                          pipe + ": is a named pipe (FIFO), not a regular file"));
}

TEST_F(LoaderTest, HugeFileIsNotRead) {
  EXPECT_THAT(Lines(Load(std::string(2 << 20, ' '))),
              ElementsAre(HasSubstr("r.lua: 2097152 bytes is too large (at most 1048576)")));
}

TEST_F(LoaderTest, LoadInstalledReportsMissingBuiltinFolder) {
  ::setenv("ADVISOR_RULES_DIR", (dir_.path() + "/absent").c_str(), 1);
  std::vector<RuleDiagnostic> errors;
  RuleSet::LoadInstalled({}, errors);
  ::unsetenv("ADVISOR_RULES_DIR");
  EXPECT_THAT(Lines(errors), ElementsAre(HasSubstr("built-in rules not found")));
}

TEST_F(LoaderTest, LoadInstalledMarksBuiltinRulesAndAddsUserRules) {
  ::setenv("ADVISOR_RULES_DIR", ADVISOR_SOURCE_RULES_DIR, 1);
  const std::string user =
      dir_.Write("mine.lua", "return {id = \"mine\", title = \"Mine\", check = function() end}");
  std::vector<RuleDiagnostic> errors;
  const RuleSet rules = RuleSet::LoadInstalled({user}, errors);
  ::unsetenv("ADVISOR_RULES_DIR");
  EXPECT_THAT(Lines(errors), IsEmpty());
  ASSERT_GT(rules.rules().size(), 1u);
  EXPECT_TRUE(rules.rules().front().builtin);
  EXPECT_EQ(rules.rules().back().id, "mine");
  EXPECT_FALSE(rules.rules().back().builtin);
}

}  // namespace
}  // namespace advisor::testing
