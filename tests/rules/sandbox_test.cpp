// Hostile rules: each must be stopped by the guard meant for it, with a one-line error naming the
// file and, where Lua knows it, the line, while the engine carries on.
#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/rules/rule_test_support.h"

namespace advisor::testing {
namespace {

using ::testing::AnyOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Runs a rule whose check body is `body` (starting on line 4 of rule.lua) and returns its one
// error line; fails the test when the rule produced no error or was not stopped.
class SandboxTest : public ::testing::Test {
 protected:
  std::string CheckError(const std::string& body,
                         const SandboxLimits& limits = WithoutTimeLimit()) {
    const std::string text =
        "return {\n"
        "  id = \"hostile\", title = \"Hostile\",\n"
        "  check = function(facts)\n" +
        body +
        "\n"
        "  end,\n"
        "}\n";
    const auto start = std::chrono::steady_clock::now();
    const RuleRun run = RunOneRule(dir_, text, MinimalFacts(), limits);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, kStoppedWithin) << "a hostile rule must be stopped";
    EXPECT_TRUE(run.findings.empty());
    if (run.errors.size() != 1) {
      ADD_FAILURE() << "expected exactly one error, got " << run.errors.size();
      return "";
    }
    EXPECT_THAT(run.errors[0], StartsWith(dir_.path() + "/rule.lua:"));
    EXPECT_EQ(run.errors[0].find('\n'), std::string::npos);
    return run.errors[0];
  }

  // Every guard but the clock stops its rule well within the 1 s time limit on an idle machine,
  // but not always under AddressSanitizer on a busy 2-core one: there 64 allocations of 1 MiB,
  // 50 million instructions and two 15 MB string.rep calls each outlasted it, and the tests read
  // "time limit exceeded" instead of the guard they test. So each guard is tested without the
  // clock, and the clock's own tests give it the default limits.
  static SandboxLimits WithoutTimeLimit() {
    SandboxLimits limits;
    limits.time = std::chrono::minutes(10);
    return limits;
  }
  // "Stopped", not "fast": far from the hours these rules would otherwise run, and far above what
  // any machine's load makes of a second.
  static constexpr double kStoppedWithin = 120.0;
  // Where the clock stops a rule depends on the machine's load (a slow string.rep is stopped on
  // its own line), so its tests name the rule and the limit, and any line of the rule.
  static constexpr const char* kAtTheTimeLimit = "rule.lua:[0-9]+: rule 'hostile': time limit of ";
  ScratchDir dir_;
};

TEST_F(SandboxTest, EndlessLoopExhaustsTheInstructionBudget) {
  EXPECT_THAT(CheckError("    while true do end"),
              HasSubstr("rule.lua:4: rule 'hostile': instruction budget of 50000000 exhausted"));
}

TEST_F(SandboxTest, LoopThatCatchesTheBudgetErrorStillStops) {
  EXPECT_THAT(CheckError("    while true do pcall(function() while true do end end) end"),
              HasSubstr("instruction budget"));
}

TEST_F(SandboxTest, ErrorHandlerThatLoopsStillStops) {
  EXPECT_THAT(CheckError("    while true do\n"
                         "      xpcall(function() while true do end end,\n"
                         "             function() while true do end end)\n"
                         "    end"),
              HasSubstr("instruction budget"));
}

TEST_F(SandboxTest, EndlessLoopWhileLoadingTheFileIsADiagnostic) {
  std::vector<RuleDiagnostic> errors;
  const auto start = std::chrono::steady_clock::now();
  RuleSet::Load({dir_.Write("load_loop.lua", "local x = 0\nwhile true do x = x + 1 end\n")},
                errors);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            kStoppedWithin);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 2);
  // Loading runs under the default limits: on a busy machine the clock may stop it first.
  EXPECT_THAT(errors[0].message, AnyOf(HasSubstr("instruction budget"), HasSubstr("time limit")));
}

// One instruction can do much work in C: 50 million comparisons of two distinct, equal 15 MB
// strings would take hours within the instruction budget.
TEST_F(SandboxTest, CostlyComparisonsInALoopHitTheTimeLimit) {
  EXPECT_THAT(CheckError("    local a = string.rep('x', 15 << 20)\n"
                         "    local b = string.rep('x', 15 << 20)\n"
                         "    while a == b do end",
                         SandboxLimits{}),
              ContainsRegex(std::string(kAtTheTimeLimit) + "1000 ms exceeded"));
}

// table.sort runs in C: a loop of sorts passes few instructions, so the clock is also read at
// every call.
TEST_F(SandboxTest, LoopOfSortsHitsTheTimeLimitEvenWhenItCatchesTheError) {
  EXPECT_THAT(CheckError("    local t = {}\n"
                         "    for i = 1, 1 << 20 do t[i] = (i * 7919) % 1000003 end\n"
                         "    while true do pcall(table.sort, t) end",
                         SandboxLimits{}),
              ContainsRegex(std::string(kAtTheTimeLimit) + "1000 ms exceeded"));
}

TEST_F(SandboxTest, SortOfMoreElementsThanTheLimitIsRefused) {
  EXPECT_THAT(CheckError("    local t = {}\n"
                         "    for i = 1, (1 << 20) + 1 do t[i] = -i end\n"
                         "    table.sort(t)"),
              HasSubstr("table.sort: table length 1048577 is beyond the 1048576 elements"));
}

TEST_F(SandboxTest, SmallerTimeLimitIsHonoured) {
  SandboxLimits limits;
  limits.time = std::chrono::milliseconds(50);
  const RuleRun run = RunOneRule(dir_,
                                 "return {id = \"x\", title = \"X\", check = function()\n"
                                 "  local s = string.rep('y', 1 << 20)\n"
                                 "  while s == s .. '' do end end}",
                                 MinimalFacts(), limits);
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_THAT(run.errors[0],
              ContainsRegex("rule.lua:[0-9]+: rule 'x': time limit of 50 ms exceeded"));
}

TEST_F(SandboxTest, MemoryBombHitsTheMemoryLimit) {
  EXPECT_THAT(CheckError("    local t = {}\n"
                         "    while true do t[#t + 1] = string.rep(\"x\", 1 << 20) .. #t end"),
              HasSubstr("rule.lua:5: rule 'hostile': memory limit of 64 MiB exceeded"));
}

TEST_F(SandboxTest, SingleHugeAllocationHitsTheMemoryLimit) {
  EXPECT_THAT(CheckError("    local s = string.rep(\"x\", 1 << 30)"), HasSubstr("memory limit"));
}

TEST_F(SandboxTest, TableBombHitsTheMemoryLimit) {
  EXPECT_THAT(CheckError("    local t = {}\n    for i = 1, 1e9 do t[i] = {i} end"),
              HasSubstr("memory limit"));
}

TEST_F(SandboxTest, SmallerLimitsAreHonoured) {
  SandboxLimits limits;
  limits.instructions = 100'000;
  const RuleRun run = RunOneRule(
      dir_, "return {id = \"x\", title = \"X\", check = function() while true do end end}",
      MinimalFacts(), limits);
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_THAT(run.errors[0], HasSubstr("instruction budget of 100000 exhausted"));
}

// Every library or function that reaches outside the sandbox is simply absent.
TEST_F(SandboxTest, EscapeHatchesAreAbsent) {
  const std::pair<const char*, const char*> attempts[] = {
      {"io.open('/etc/passwd')", "global 'io'"},
      {"os.execute('true')", "global 'os'"},
      {"require('os')", "global 'require'"},
      {"load('return 1')()", "global 'load'"},
      {"loadfile('/etc/passwd')", "global 'loadfile'"},
      {"dofile('/etc/passwd')", "global 'dofile'"},
      {"package.loadlib('libc.so.6', 'system')", "global 'package'"},
      {"debug.getregistry()", "global 'debug'"},
      {"collectgarbage('count')", "global 'collectgarbage'"},
      {"string.dump(function() end)", "field 'dump'"},
      {"print('hello')", "global 'print'"},
      {"rawset(facts, 'x', 1)", "global 'rawset'"},
      {"coroutine.wrap(function() end)", "global 'coroutine'"},
  };
  for (const auto& [code, missing] : attempts) {
    EXPECT_THAT(CheckError(std::string("    ") + code), HasSubstr(missing)) << code;
  }
}

TEST_F(SandboxTest, StringMetatableIsLockedAndLeadsNowhere) {
  EXPECT_THAT(CheckError("    assert(getmetatable('') == 'read-only')\n"
                         "    assert(('').dump == nil)\n"
                         "    error('locked')"),
              HasSubstr("rule.lua:6: rule 'hostile': locked"));
  EXPECT_THAT(CheckError("    getmetatable('').__index.dump(print)"),
              HasSubstr("attempt to index a nil value"));
}

TEST_F(SandboxTest, BytecodeIsRefused) {
  std::vector<RuleDiagnostic> errors;
  RuleSet::Load({dir_.Write("binary.lua", std::string("\x1bLua\x54\x00", 6) + "junk")}, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].message, HasSubstr("attempt to load a binary chunk"));
}

TEST_F(SandboxTest, ErrorInCheckNamesTheLine) {
  EXPECT_THAT(CheckError("    local x = 1\n    error('no luck')"),
              HasSubstr("rule.lua:5: rule 'hostile': no luck"));
}

TEST_F(SandboxTest, NonStringErrorObjectsAreDescribedWithoutRunningThem) {
  EXPECT_THAT(
      CheckError("    error(setmetatable({}, {__tostring = function() while true do end end}))"),
      HasSubstr("error object is a table value"));
}

TEST_F(SandboxTest, MultiLineErrorsBecomeOneLine) {
  EXPECT_THAT(CheckError("    error('first\\nsecond')"), HasSubstr("first second"));
}

TEST_F(SandboxTest, FactsAreReadOnly) {
  EXPECT_THAT(CheckError("    facts.step.median_ms = 0"),
              HasSubstr("rule.lua:4: rule 'hostile': facts are read-only (cannot set field "
                        "'median_ms')"));
  EXPECT_THAT(CheckError("    facts.extra = {}"), HasSubstr("facts are read-only"));
  EXPECT_THAT(CheckError("    table.insert(facts.ops, {})"), HasSubstr("facts are read-only"));
  EXPECT_THAT(CheckError("    table.sort(facts.ops, function(a, b) return a.ms < b.ms end)"),
              HasSubstr("facts are read-only"));
  EXPECT_THAT(CheckError("    setmetatable(facts, nil)"),
              HasSubstr("cannot change a protected metatable"));
}

TEST_F(SandboxTest, CatastrophicPatternIsRefused) {
  EXPECT_THAT(CheckError("    string.rep('a', 100000):find('.-.-.-b')"),
              HasSubstr("string.find: pattern with 3 repetition items is too costly"));
  EXPECT_THAT(CheckError("    for _ in string.rep('a', 5000):gmatch('a-a-a-b') do end"),
              HasSubstr("string.gmatch"));
}

TEST_F(SandboxTest, PlainSearchOfHugeNeedleIsRefused) {
  EXPECT_THAT(CheckError("    local hay = string.rep('a', 1 << 22)\n"
                         "    hay:find(string.rep('a', 1 << 21) .. 'b', 1, true)"),
              HasSubstr("too costly"));
}

TEST_F(SandboxTest, SparseTableCannotMakeTableInsertLoopForever) {
  EXPECT_THAT(CheckError("    local t = {}\n"
                         "    for i = 1, 9 do t[i] = true end\n"
                         "    t[16], t[17] = true, true\n"
                         "    for i = 5, 62 do t[1 << i] = true end\n"
                         "    assert(#t == 1 << 62, 'a border of 2^62 from 70 entries')\n"
                         "    table.insert(t, 1, true)"),
              HasSubstr("table.insert: table length"));
  EXPECT_THAT(CheckError("    local t = setmetatable({}, {__len = function() return 1 << 62 end})\n"
                         "    table.remove(t, 1)"),
              HasSubstr("__len metamethod"));
}

TEST_F(SandboxTest, EmptyStringRepeatedEndlesslyIsInstant) {
  EXPECT_THAT(CheckError("    assert(string.rep('', 1 << 62) == '')\n"
                         "    assert(('x'):rep(3, '-') == 'x-x-x')\n"
                         "    error('done')"),
              HasSubstr("rule.lua:6: rule 'hostile': done"));
}

// Lua runs finalizers with hooks off, out of the budget's reach: rules cannot have any.
TEST_F(SandboxTest, FinalizersAreRefused) {
  std::vector<RuleDiagnostic> errors;
  RuleSet::Load({dir_.Write("gc.lua",
                            "local mt = {__gc = function() while true do end end}\n"
                            "local keep = setmetatable({}, mt)\n"
                            "return {id = \"gc\", title = \"GC\", check = function() end}\n")},
                errors);
  EXPECT_THAT(
      Lines(errors),
      ::testing::ElementsAre(HasSubstr("gc.lua:2: setmetatable: __gc finalizers are not allowed")));
}

TEST_F(SandboxTest, FinalizerAddedAfterSetmetatableNeverRuns) {
  EXPECT_THAT(CheckError("    local mt = {}\n"
                         "    local keep = setmetatable({}, mt)\n"
                         "    mt.__gc = function() while true do end end\n"
                         "    error('finished')"),
              HasSubstr("rule.lua:7: rule 'hostile': finished"));
}

TEST_F(SandboxTest, CloseHandlerThatLoopsStillStops) {
  EXPECT_THAT(CheckError("    local guard <close> = setmetatable({}, {__close = function()\n"
                         "      while true do end\n"
                         "    end})\n"
                         "    while true do end"),
              HasSubstr("instruction budget"));
}

TEST_F(SandboxTest, XpcallCallsItsHandlerWithTheError) {
  EXPECT_THAT(CheckError("    local ok, message = xpcall(function(x) error(x .. '!', 0) end,\n"
                         "        function(e) return 'handled ' .. e end, 'oops')\n"
                         "    assert(not ok)\n"
                         "    error(message, 0)"),
              HasSubstr("rule 'hostile': handled oops!"));
}

TEST_F(SandboxTest, UsefulLibrariesWork) {
  const RuleRun run = RunOneRule(dir_, R"(
return {
  id = "libraries", title = "Libraries",
  check = function(facts)
    local names = {}
    for _, op in ipairs(facts.ops) do names[#names + 1] = op.name end
    table.sort(names)
    local keys = 0
    for _ in pairs(facts.step) do keys = keys + 1 end
    local first = next(facts.ops)
    return {{
      severity = "low",
      message = string.format("%s|%d|%d|%d|%s", table.concat(names, ","), #facts.ops, keys,
                              first, utf8.char(956) .. math.floor(2.5)),
      evidence = tostring(facts.modules.encoder.has_op["aten::gather"]),
    }}
  end,
})",
                                 MinimalFacts());
  ASSERT_TRUE(run.errors.empty()) << run.errors[0];
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].message,
            "aten::add,aten::mm|2|7|1|\xce\xbc"
            "2");
  EXPECT_EQ(run.findings[0].evidence, "true");
}

TEST_F(SandboxTest, FailingRuleDoesNotStopTheOthers) {
  dir_.Write("a_broken.lua",
             "return {id = \"broken\", title = \"B\", check = function() error('boom') end}");
  dir_.Write("b_fine.lua",
             "return {id = \"fine\", title = \"F\", check = function()\n"
             "  return {{severity = 'low', message = 'm', evidence = 'e'}} end}");
  std::vector<RuleDiagnostic> errors;
  const RuleSet rules = RuleSet::Load({dir_.path()}, errors);
  ASSERT_TRUE(errors.empty());
  const RuleRun run = RunRules(rules, MinimalFacts());
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_THAT(run.errors[0], HasSubstr("a_broken.lua:1: rule 'broken': boom"));
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].rule, "fine");
}

}  // namespace
}  // namespace advisor::testing
