// The stages every rule file goes through, shared by loading (RuleSet::Load) and running
// (RunRules): read the text, compile and run its chunk in a sandbox, validate the rule table it
// returns. Each stage reports problems as diagnostics naming the file and the line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/rules/lua_sandbox.h"
#include "engine/rules/rule_diagnostic.h"

namespace advisor {

struct RuleSource {
  std::string path;        // as found, e.g. "rules/gather_backward.lua"
  std::string chunk_name;  // "@gather_backward.lua": how Lua names the file in its messages
  std::string text;
};

// Stage 1: read. nullopt, with a diagnostic, when the file cannot be read or is implausibly large.
std::optional<RuleSource> ReadRuleFile(const std::string& path,
                                       std::vector<RuleDiagnostic>& errors);

struct RuleHeader {
  std::string id;
  std::string title;
  std::string description;  // optional
  int line = 0;             // the return statement that hands over the rule table
  int check_line = 0;       // where check is defined
};

// Stages 2 (compile and run the chunk) and 3 (validate the table), in `sandbox`, above whatever
// the caller pushed: opens the helpers, arms the sandbox's limits, runs the chunk. On success the
// rule table is left on top of the stack.
std::optional<RuleHeader> EvaluateRuleFile(LuaSandbox& sandbox, const RuleSource& source,
                                           std::vector<RuleDiagnostic>& errors);

// Pushes the raw value of field `name` of the table at `index` (nil when absent) without running
// metamethods or allocating, so it is safe outside LuaSandbox::Call.
void PushRawField(lua_State* L, int index, const char* name);

// A Lua error message as a diagnostic for `source`: the "name:line:" prefix that Lua puts on
// messages raised in the file becomes the line; other messages get `fallback_line`.
RuleDiagnostic DiagnosticFromLuaError(const RuleSource& source, const std::string& message,
                                      int fallback_line);

}  // namespace advisor
