#include "engine/rules/rule_file.h"

#include <cctype>
#include <cstring>
#include <filesystem>

#include "engine/rules/rule_helpers.h"
#include "engine/util/input_file.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;

// Rules are a page or two of Lua; a file this large is a mistake (a data file, a binary).
constexpr std::uintmax_t kMaxRuleFileBytes = 1 << 20;
constexpr std::size_t kMaxIdLength = 64;
constexpr std::size_t kMaxTitleLength = 120;
constexpr std::size_t kMaxLineDigits = 9;  // keeps std::stoi in range whatever a message says
constexpr const char* kRuleShape =
    "{id = \"...\", title = \"...\", check = function(facts) ... end}";

std::string LuaTypeName(lua_State* L, int index) { return luaL_typename(L, index); }

bool IsKebabCase(const std::string& id) {
  if (id.empty() || id.size() > kMaxIdLength || id.front() == '-' || id.back() == '-') {
    return false;
  }
  for (std::size_t i = 0; i < id.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(id[i]);
    const bool allowed = std::islower(c) || std::isdigit(c) || (c == '-' && id[i - 1] != '-');
    if (!allowed) return false;
  }
  return true;
}

// Stage 2 as a LuaSandbox::Call body: compiles the text (source only: precompiled bytecode can
// crash the VM) and runs the chunk, returning its first result.
int RunChunk(lua_State* L) {
  const auto* source = static_cast<const RuleSource*>(lua_touserdata(L, 1));
  if (luaL_loadbufferx(L, source->text.data(), source->text.size(), source->chunk_name.c_str(),
                       "t") != LUA_OK) {
    return lua_error(L);
  }
  lua_call(L, 0, 1);
  return 1;
}

// Copies the string at `index` into `out`; false when it is not a string.
bool ReadString(lua_State* L, int index, std::string& out) {
  if (lua_type(L, index) != LUA_TSTRING) return false;
  std::size_t length = 0;
  const char* text = lua_tolstring(L, index, &length);
  out.assign(text, length);
  return true;
}

// Stage 3: the table on top of the stack has exactly the documented fields with the right types.
// Reads with lua_next only (no metamethods run, nothing allocated).
std::optional<RuleHeader> ValidateRuleTable(lua_State* L, const RuleSource& source, int line,
                                            std::vector<RuleDiagnostic>& errors) {
  const auto problem = [&](const std::string& message) {
    errors.push_back({source.path, line, message});
  };
  if (lua_type(L, -1) != LUA_TTABLE) {
    problem(std::string("the file must return the rule table ") + kRuleShape + ", not " +
            (lua_isnil(L, -1) ? "nothing" : "a " + LuaTypeName(L, -1)));
    return std::nullopt;
  }
  const std::size_t errors_before = errors.size();
  const int table = lua_gettop(L);
  RuleHeader header;
  header.line = line;
  bool has_id = false;
  bool has_title = false;
  bool has_check = false;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    std::string key;
    if (!ReadString(L, -2, key)) {
      problem("the rule table has a " + LuaTypeName(L, -2) + " key; only named fields are allowed");
    } else if (key == "id") {
      has_id = true;
      if (!ReadString(L, -1, header.id)) {
        problem("id must be a string, not a " + LuaTypeName(L, -1));
      } else if (!IsKebabCase(header.id)) {
        problem("id '" + header.id +
                "' is not kebab-case (lower-case letters and digits joined by single hyphens, at "
                "most " + std::to_string(kMaxIdLength) + " characters)");
      }
    } else if (key == "title") {
      has_title = true;
      if (!ReadString(L, -1, header.title) || header.title.empty() ||
          header.title.size() > kMaxTitleLength) {
        problem("title must be a non-empty string of at most " + std::to_string(kMaxTitleLength) +
                " characters");
      }
    } else if (key == "description") {
      if (!ReadString(L, -1, header.description)) {
        problem("description must be a string, not a " + LuaTypeName(L, -1));
      }
    } else if (key == "check") {
      has_check = true;
      if (lua_type(L, -1) != LUA_TFUNCTION) {
        problem("check must be a function(facts) that returns a list of findings, not a " +
                LuaTypeName(L, -1));
      } else {
        lua_Debug info;
        lua_pushvalue(L, -1);
        lua_getinfo(L, ">S", &info);
        header.check_line = info.linedefined;
      }
    } else {
      problem("unknown field '" + key + "' in the rule table (allowed: id, title, description, "
              "check)");
    }
    lua_pop(L, 1);
  }
  if (!has_id) problem("missing id: every rule needs a unique kebab-case id");
  if (!has_title) problem("missing title: a short line saying what the rule detects");
  if (!has_check) problem("missing check: a function(facts) that returns a list of findings");
  if (errors.size() != errors_before) return std::nullopt;
  return header;
}

// Lua reports the line where the return statement ends (the rule table's closing brace). Rules
// are written "return {" at the start of a line, so the last such line up to there is where the
// statement starts; without one (e.g. "return rule" indented), the end line it is.
int ReturnStatementLine(const std::string& text, int end_line) {
  int line = 1;
  int found = 0;
  for (std::size_t start = 0; start < text.size() && line <= end_line; ++line) {
    if (text.compare(start, 6, "return") == 0 &&
        (start + 6 == text.size() || !(std::isalnum(static_cast<unsigned char>(text[start + 6])) ||
                                       text[start + 6] == '_'))) {
      found = line;
    }
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string::npos) break;
    start = newline + 1;
  }
  return found > 0 ? found : end_line;
}

// Lua's short name for a chunk named "@name": what it puts before ":line:" in messages.
std::string ShortName(const RuleSource& source) { return source.chunk_name.substr(1); }

}  // namespace

std::optional<RuleSource> ReadRuleFile(const std::string& path,
                                       std::vector<RuleDiagnostic>& errors) {
  std::string text;
  try {
    text = ReadInputFile(path, kMaxRuleFileBytes);  // refuses a FIFO rather than wait on it
  } catch (const InputFileError& error) {
    errors.push_back({path, 0, error.problem()});
    return std::nullopt;
  }
  return RuleSource{path, "@" + fs::path(path).filename().string(), std::move(text)};
}

std::optional<RuleHeader> EvaluateRuleFile(LuaSandbox& sandbox, const RuleSource& source,
                                           std::vector<RuleDiagnostic>& errors) {
  if (auto error = sandbox.Call(&OpenRuleHelpers, nullptr, 0)) {
    errors.push_back({source.path, 0, "cannot open the rule helpers: " + *error});
    return std::nullopt;
  }
  sandbox.ArmLimits();
  sandbox.TrackChunk(source.chunk_name);
  sandbox.WatchChunkReturns(true);
  const auto error = sandbox.Call(&RunChunk, const_cast<RuleSource*>(&source), 1);
  sandbox.WatchChunkReturns(false);
  if (error) {
    errors.push_back(DiagnosticFromLuaError(source, *error, sandbox.last_tracked_line()));
    return std::nullopt;
  }
  return ValidateRuleTable(sandbox.state(), source,
                           ReturnStatementLine(source.text, sandbox.chunk_return_line()), errors);
}

void PushRawField(lua_State* L, int index, const char* name) {
  index = lua_absindex(L, index);
  lua_pushnil(L);
  while (lua_next(L, index)) {
    if (lua_type(L, -2) == LUA_TSTRING && std::strcmp(lua_tostring(L, -2), name) == 0) {
      lua_remove(L, -2);
      return;
    }
    lua_pop(L, 1);
  }
  lua_pushnil(L);
}

RuleDiagnostic DiagnosticFromLuaError(const RuleSource& source, const std::string& message,
                                      int fallback_line) {
  const std::string prefix = ShortName(source) + ":";
  if (message.compare(0, prefix.size(), prefix) == 0) {
    std::size_t end = prefix.size();
    while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end]))) ++end;
    const std::size_t digits = end - prefix.size();
    if (digits > 0 && digits <= kMaxLineDigits && end < message.size() && message[end] == ':') {
      const int line = std::stoi(message.substr(prefix.size(), digits));
      std::size_t text = end + 1;
      if (text < message.size() && message[text] == ' ') ++text;
      return {source.path, line, message.substr(text)};
    }
  }
  return {source.path, fallback_line, message};
}

}  // namespace advisor
