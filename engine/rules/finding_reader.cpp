#include "engine/rules/finding_reader.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/rules/read_only_table.h"
#include "engine/rules/rule_file.h"

namespace advisor {
namespace {

constexpr std::size_t kMaxTextBytes = 2000;   // message, evidence: a few sentences
constexpr std::size_t kMaxNameBytes = 500;    // path, op
constexpr std::size_t kMaxRecipeBytes = 64;
constexpr std::size_t kMaxQuotedBytes = 40;   // of a bad value quoted in a problem
constexpr std::size_t kMaxFileBytes = 4096;   // a source's file path

std::string TypeOf(lua_State* L, int index) { return luaL_typename(L, index); }

std::string Text(lua_State* L, int index) {
  std::size_t length = 0;
  const char* text = lua_tolstring(L, index, &length);
  return std::string(text, length);
}

std::string Quote(const std::string& value) {
  if (value.size() <= kMaxQuotedBytes) return "'" + value + "'";
  return "'" + value.substr(0, kMaxQuotedBytes) + "...'";
}

bool IsRecipeId(const std::string& recipe) {
  if (recipe.size() > kMaxRecipeBytes) return false;
  for (char c : recipe) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// A number field of the finding (the value at -1) that must be finite and >= 0: an estimate.
std::string NonNegativeNumber(lua_State* L, const std::string& key, std::optional<double>& into) {
  if (lua_type(L, -1) != LUA_TNUMBER) return key + " must be a number, not a " + TypeOf(L, -1);
  const double value = lua_tonumberx(L, -1, nullptr);
  if (!std::isfinite(value) || value < 0) return key + " must be finite and >= 0";
  into = value;
  return "";
}

// A finding's `source` (the table at -1): {file = "...", line = N, text = "..."}, as the facts'
// source tables are (a piece of facts.data.stage passes its own). "" or the problem.
std::string ReadSource(lua_State* L, Finding& finding) {
  if (lua_type(L, -1) != LUA_TTABLE) {
    return "source must be a table {file, line, text}, not a " + TypeOf(L, -1);
  }
  // Read raw, outside the sandbox's protected call: a facts proxy through its hidden table.
  lua_pushvalue(L, -1);
  if (IsReadOnlyProxy(L, -1)) {
    lua_getmetatable(L, -1);
    lua_getfield(L, -1, "__index");  // the proxy's metatable is advisor's: a plain table
    lua_replace(L, -3);
    lua_pop(L, 1);
  }
  const int table = lua_gettop(L);
  SourceLocation source;
  std::string problem;
  PushRawField(L, table, "file");
  if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0 ||
      lua_rawlen(L, -1) > kMaxFileBytes) {
    problem = "source.file must be a path of 1.." + std::to_string(kMaxFileBytes) + " bytes";
  } else {
    source.file = Text(L, -1);
  }
  PushRawField(L, table, "line");
  if (problem.empty() && (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
                          lua_tointeger(L, -1) > (1 << 30))) {
    problem = "source.line must be an integer >= 1";
  } else if (problem.empty()) {
    source.line = static_cast<int>(lua_tointeger(L, -1));
  }
  PushRawField(L, table, "text");
  if (problem.empty() && !lua_isnil(L, -1) &&
      (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) > kMaxTextBytes)) {
    problem = "source.text must be a string of at most " + std::to_string(kMaxTextBytes) + " bytes";
  } else if (problem.empty() && !lua_isnil(L, -1)) {
    source.text = Text(L, -1);
  }
  lua_pop(L, 4);
  if (problem.empty()) finding.source = std::move(source);
  return problem;
}

// Reads one field of a finding (key at -2, value at -1) into `finding`; "" or the problem.
std::string ReadField(lua_State* L, const std::string& key, Finding& finding) {
  const bool is_string = lua_type(L, -1) == LUA_TSTRING;
  const auto text_field = [&](std::string& out, std::size_t max_bytes,
                              bool allow_empty) -> std::string {
    if (!is_string) return key + " must be a string, not a " + TypeOf(L, -1);
    out = Text(L, -1);
    if (out.empty() && !allow_empty) return key + " must not be empty";
    if (out.size() > max_bytes) {
      return key + " is " + std::to_string(out.size()) + " bytes; at most " +
             std::to_string(max_bytes);
    }
    return "";
  };
  if (key == "severity") {
    if (!is_string) return "severity must be a string, not a " + TypeOf(L, -1);
    const std::string name = Text(L, -1);
    const std::optional<Severity> severity = ParseSeverity(name);
    if (!severity) return "severity must be \"high\", \"medium\" or \"low\", not " + Quote(name);
    finding.severity = *severity;
    return "";
  }
  if (key == "message") return text_field(finding.message, kMaxTextBytes, false);
  if (key == "evidence") return text_field(finding.evidence, kMaxTextBytes, false);
  if (key == "path") return text_field(finding.path, kMaxNameBytes, true);
  if (key == "op") return text_field(finding.op, kMaxNameBytes, true);
  if (key == "recipe") {
    std::string problem = text_field(finding.recipe, kMaxRecipeBytes, true);
    if (problem.empty() && !IsRecipeId(finding.recipe)) {
      problem = "recipe must be a recipe id (lower-case letters, digits, hyphens) or \"\", not " +
                Quote(finding.recipe);
    }
    return problem;
  }
  if (key == "expected_gain_ms") return NonNegativeNumber(L, key, finding.expected_gain_ms);
  if (key == "expected_saving_mb") return NonNegativeNumber(L, key, finding.expected_saving_mb);
  if (key == "source") return ReadSource(L, finding);
  return "unknown field " + Quote(key) +
         " (allowed: severity, message, evidence, path, op, recipe, expected_gain_ms, "
         "expected_saving_mb, source)";
}

// Reads the finding table at the top of the stack; nullopt with `problem` set when invalid.
std::optional<Finding> ReadFinding(lua_State* L, std::string& problem) {
  if (lua_type(L, -1) != LUA_TTABLE) {
    problem = "is a " + TypeOf(L, -1) + ", not a table";
    return std::nullopt;
  }
  const int table = lua_gettop(L);
  Finding finding;
  bool has_severity = false;
  bool has_message = false;
  bool has_evidence = false;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      problem = "has a " + TypeOf(L, -2) + " key; findings have named fields only";
    } else {
      const std::string key = Text(L, -2);
      problem = ReadField(L, key, finding);
      has_severity |= key == "severity";
      has_message |= key == "message";
      has_evidence |= key == "evidence";
    }
    if (!problem.empty()) {
      lua_pop(L, 2);
      return std::nullopt;
    }
    lua_pop(L, 1);
  }
  if (!has_severity) {
    problem = "missing severity (\"high\", \"medium\" or \"low\")";
  } else if (!has_message) {
    problem = "missing message (what is wrong and what to do)";
  } else if (!has_evidence) {
    problem = "missing evidence (the measured numbers behind the finding)";
  }
  if (!problem.empty()) return std::nullopt;
  return finding;
}

// "check must return a list"; a lone finding table is the common slip, so it gets its own hint.
std::string ListShapeProblem(lua_State* L, int list, lua_Integer length) {
  lua_pushnil(L);
  while (lua_next(L, list)) {
    const bool in_sequence = lua_isinteger(L, -2) && lua_tointeger(L, -2) >= 1 &&
                             lua_tointeger(L, -2) <= length;
    if (!in_sequence) {
      const bool named = lua_type(L, -2) == LUA_TSTRING;
      lua_pop(L, 2);
      if (named) {
        return "check returned a table with named fields; return a list of findings, e.g. "
               "return {{severity = ..., message = ..., evidence = ...}}";
      }
      return "check must return a list of findings; its table has keys outside 1..#list";
    }
    lua_pop(L, 1);
  }
  return "";
}

}  // namespace

FindingsRead ReadFindings(lua_State* L, int index, const std::string& rule_id) {
  FindingsRead read;
  index = lua_absindex(L, index);
  if (lua_isnil(L, index)) return read;
  if (lua_type(L, index) != LUA_TTABLE) {
    read.problems.push_back("check must return a list of findings (a table) or nil, not a " +
                            TypeOf(L, index));
    return read;
  }
  const auto length = static_cast<lua_Integer>(lua_rawlen(L, index));
  if (std::string problem = ListShapeProblem(L, index, length); !problem.empty()) {
    read.problems.push_back(problem);
    return read;
  }
  if (static_cast<std::size_t>(length) > kMaxFindingsPerRule) {
    read.problems.push_back("check returned " + std::to_string(length) +
                            " findings; only the first " + std::to_string(kMaxFindingsPerRule) +
                            " are kept");
  }
  const lua_Integer kept = std::min<lua_Integer>(length, kMaxFindingsPerRule);
  for (lua_Integer i = 1; i <= kept; ++i) {
    lua_rawgeti(L, index, i);
    std::string problem;
    if (std::optional<Finding> finding = ReadFinding(L, problem)) {
      finding->rule = rule_id;
      read.findings.push_back(std::move(*finding));
    } else {
      read.problems.push_back("finding " + std::to_string(i) + ": " + problem);
    }
    lua_pop(L, 1);
  }
  return read;
}

}  // namespace advisor
