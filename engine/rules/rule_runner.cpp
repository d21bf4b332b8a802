#include "engine/rules/rule_runner.h"

#include <algorithm>
#include <exception>

#include "engine/rules/finding_reader.h"
#include "engine/rules/read_only_table.h"

namespace advisor {
namespace {

// A LuaSandbox::Call body: pushes the facts (light userdata argument) as read-only tables.
int PushFacts(lua_State* L) {
  PushReadOnlyJson(L, *static_cast<const nlohmann::json*>(lua_touserdata(L, 1)));
  return 1;
}

// Runs one rule in a fresh sandbox: facts first (outside the rule's memory cap), then the file,
// then check(facts). Appends its findings; returns its problems.
std::vector<RuleDiagnostic> RunRule(const RuleInfo& rule, const RuleSource& source,
                                    const nlohmann::json& facts, const SandboxLimits& limits,
                                    std::vector<Finding>& findings) {
  std::vector<RuleDiagnostic> problems;
  LuaSandbox sandbox(limits);
  lua_State* L = sandbox.state();
  if (auto error = sandbox.Call(&PushFacts, const_cast<nlohmann::json*>(&facts), 1)) {
    problems.push_back({source.path, 0, "cannot pass the facts to the rule: " + *error});
    return problems;
  }
  const int facts_index = lua_gettop(L);
  const std::optional<RuleHeader> header = EvaluateRuleFile(sandbox, source, problems);
  if (!header) return problems;

  PushRawField(L, -1, "check");
  lua_pushvalue(L, facts_index);
  sandbox.TrackChunk(source.chunk_name);
  if (auto error = sandbox.CallFunction(1, 1)) {
    const int line = sandbox.last_tracked_line() > 0 ? sandbox.last_tracked_line()
                                                     : header->check_line;
    problems.push_back(DiagnosticFromLuaError(source, *error, line));
    return problems;
  }
  FindingsRead read = ReadFindings(L, -1, rule.id);
  for (std::string& problem : read.problems) {
    problems.push_back({source.path, header->check_line, std::move(problem)});
  }
  findings.insert(findings.end(), std::make_move_iterator(read.findings.begin()),
                  std::make_move_iterator(read.findings.end()));
  return problems;
}

}  // namespace

RuleRun RunRules(const RuleSet& rules, const nlohmann::json& facts, const SandboxLimits& limits) {
  RuleRun run;
  for (std::size_t i = 0; i < rules.rules().size(); ++i) {
    const RuleInfo& rule = rules.rules()[i];
    std::vector<RuleDiagnostic> problems;
    try {
      problems = RunRule(rule, rules.source(i), facts, limits, run.findings);
    } catch (const std::exception& error) {  // the sandbox could not be created
      problems.push_back({rule.file, 0, error.what()});
    }
    for (RuleDiagnostic& problem : problems) {
      problem.message = "rule '" + rule.id + "': " + problem.message;
      run.errors.push_back(problem.ToString());
    }
  }
  RankFindings(run.findings);
  return run;
}

}  // namespace advisor
