#include "engine/rules/finding_reader.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace advisor {
namespace {

constexpr std::size_t kMaxTextBytes = 2000;   // message, evidence: a few sentences
constexpr std::size_t kMaxNameBytes = 500;    // path, op
constexpr std::size_t kMaxRecipeBytes = 64;
constexpr std::size_t kMaxQuotedBytes = 40;   // of a bad value quoted in a problem

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
  if (key == "expected_gain_ms") {
    if (lua_type(L, -1) != LUA_TNUMBER) {
      return "expected_gain_ms must be a number, not a " + TypeOf(L, -1);
    }
    const double gain = lua_tonumberx(L, -1, nullptr);
    if (!std::isfinite(gain) || gain < 0) return "expected_gain_ms must be finite and >= 0";
    finding.expected_gain_ms = gain;
    return "";
  }
  return "unknown field " + Quote(key) +
         " (allowed: severity, message, evidence, path, op, recipe, expected_gain_ms)";
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
