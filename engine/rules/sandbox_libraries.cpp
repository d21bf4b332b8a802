#include "engine/rules/sandbox_libraries.h"

#include <cmath>
#include <cstddef>
#include <string_view>

#include "engine/rules/read_only_table.h"

namespace advisor {
namespace {

// The guards below exist because some library functions loop in C, and some Lua code runs with
// hooks off, where the instruction budget's count hook never fires: a rule could hang the engine
// with one call.

// Matching a pattern with k repetition items (*, +, -, ?, %b) against n bytes can backtrack
// through about n^(k+1) positions ("(.-)(.-)(.-)x" on a long string never finishes). Calls whose
// bound exceeds this many steps (a fraction of a second) fail instead of running.
constexpr double kMaxPatternWork = 1e8;

// table.insert(t, pos, v) and table.remove(t, pos) shift #t - pos elements in C. A sparse table
// such as {[1]=1, [2]=1, [4]=1, ..., [2^62]=1} has a border (#t) near 2^61; no real sequence a
// rule can build under its memory cap comes near this length.
constexpr lua_Unsigned kMaxShiftedLength = lua_Unsigned{1} << 24;

// table.sort without a comparison function runs in C until it returns, out of the hook's reach:
// 2^20 numbers take about a third of a second, and the memory cap allows four times as many.
constexpr lua_Unsigned kMaxSortedLength = lua_Unsigned{1} << 20;

int RepetitionItems(std::string_view pattern) {
  int items = 0;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    bool single_class = true;  // a character class that a quantifier may follow
    if (c == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'b') {
      ++items;  // %bxy scans for the balanced end like a repetition
      i += 4;
      single_class = false;
    } else if (c == '%') {
      i += 2;
    } else if (c == '[') {
      ++i;
      if (i < pattern.size() && pattern[i] == '^') ++i;
      if (i < pattern.size() && pattern[i] == ']') ++i;  // a leading ']' is a member
      while (i < pattern.size() && pattern[i] != ']') i += pattern[i] == '%' ? 2 : 1;
      ++i;
    } else {
      single_class = c != '(' && c != ')';
      ++i;
    }
    if (single_class && i < pattern.size() &&
        std::string_view("*+-?").find(pattern[i]) != std::string_view::npos) {
      ++items;
      ++i;
    }
  }
  return items;
}

// Fails the call (a Lua error naming the function) when matching could take too long.
void CheckPatternCost(lua_State* L, const char* function, bool plain_allowed,
                      bool anchor_honoured) {
  const int subject_type = lua_type(L, 1);
  const int pattern_type = lua_type(L, 2);
  if ((subject_type != LUA_TSTRING && subject_type != LUA_TNUMBER) ||
      (pattern_type != LUA_TSTRING && pattern_type != LUA_TNUMBER)) {
    return;  // the library function raises its own argument error
  }
  std::size_t subject_length = 0;
  std::size_t pattern_length = 0;
  lua_tolstring(L, 1, &subject_length);
  const char* pattern = lua_tolstring(L, 2, &pattern_length);
  const std::string_view view(pattern, pattern_length);

  const double positions = static_cast<double>(subject_length) + 1;
  const double compared = static_cast<double>(pattern_length) + 1;
  double work = positions * compared;  // a plain search: every start, every pattern byte
  if (!(plain_allowed && lua_toboolean(L, 4))) {
    const bool anchored = anchor_honoured && !view.empty() && view.front() == '^';
    work = (anchored ? 1 : positions) * std::pow(positions, RepetitionItems(view)) * compared;
  }
  if (work > kMaxPatternWork) {
    luaL_error(L, "%s: pattern with %d repetition items is too costly for a %I-byte subject",
               function, RepetitionItems(view), static_cast<lua_Integer>(subject_length));
  }
}

// Calls the library function kept in upvalue 1 with this call's arguments.
int CallOriginal(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

int GuardedFind(lua_State* L) {
  CheckPatternCost(L, "string.find", /*plain_allowed=*/true, /*anchor_honoured=*/true);
  return CallOriginal(L);
}

int GuardedMatch(lua_State* L) {
  CheckPatternCost(L, "string.match", false, true);
  return CallOriginal(L);
}

int GuardedGmatch(lua_State* L) {
  CheckPatternCost(L, "string.gmatch", false, /*anchor_honoured=*/false);
  return CallOriginal(L);
}

int GuardedGsub(lua_State* L) {
  CheckPatternCost(L, "string.gsub", false, true);
  return CallOriginal(L);
}

// string.rep("", 2^62) copies nothing but still loops 2^62 times; its result is "".
int GuardedRep(lua_State* L) {
  std::size_t length = 0;
  std::size_t separator_length = 0;
  luaL_checklstring(L, 1, &length);
  const lua_Integer count = luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &separator_length);
  if (count > 0 && length + separator_length == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  return CallOriginal(L);
}

// For the table functions that loop over #t elements in C: the table they change must be the
// rule's own, with a length no longer than `max_length`.
void CheckSequence(lua_State* L, const char* function, lua_Unsigned max_length) {
  if (lua_type(L, 1) != LUA_TTABLE) return;  // the library function raises its own error
  if (IsReadOnlyProxy(L, 1)) luaL_error(L, "%s: facts are read-only", function);
  // A __len metamethod could report a small length to this check and a huge one to the loop.
  if (luaL_getmetafield(L, 1, "__len") != LUA_TNIL) {
    luaL_error(L, "%s: tables with a __len metamethod are not supported in rules", function);
  }
  if (lua_rawlen(L, 1) > max_length) {
    luaL_error(L, "%s: table length %I is beyond the %I elements a rule may use here", function,
               static_cast<lua_Integer>(lua_rawlen(L, 1)), static_cast<lua_Integer>(max_length));
  }
}

int GuardedInsert(lua_State* L) {
  CheckSequence(L, "table.insert", kMaxShiftedLength);
  return CallOriginal(L);
}

int GuardedRemove(lua_State* L) {
  CheckSequence(L, "table.remove", kMaxShiftedLength);
  return CallOriginal(L);
}

int GuardedSort(lua_State* L) {
  CheckSequence(L, "table.sort", kMaxSortedLength);
  return CallOriginal(L);
}

// Lua runs __gc finalizers with debug hooks switched off, so a finalizer that loops would escape
// the instruction budget. Lua marks a table for finalization only when setmetatable finds a __gc
// field in the metatable (adding one later has no effect), so refusing it here is enough; rules
// cannot create userdata.
int GuardedSetmetatable(lua_State* L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL) {
      return luaL_error(L, "setmetatable: __gc finalizers are not allowed in rules");
    }
    lua_pop(L, 1);
  }
  return CallOriginal(L);
}

// Lua's xpcall calls the message handler from inside the error. When the error comes from the
// budget hook, hooks are still off at that point, so a handler that loops would never stop. This
// xpcall calls the handler after the error has unwound, with the budget in force. Rules cannot
// tell the difference: without the debug library a handler cannot look at the failed stack.
int SafeXpcall(lua_State* L) {
  const int arguments = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  luaL_checkstack(L, arguments, "too many arguments to xpcall");
  lua_pushvalue(L, 1);
  for (int i = 3; i <= arguments; ++i) lua_pushvalue(L, i);
  if (lua_pcall(L, arguments - 2, LUA_MULTRET, 0) == LUA_OK) {
    lua_pushboolean(L, 1);
    lua_insert(L, arguments + 1);
    return lua_gettop(L) - arguments;
  }
  lua_pushvalue(L, 2);
  lua_insert(L, -2);
  lua_pcall(L, 1, 1, 0);  // the handler's result, or the error the handler raised
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
}

struct Guard {
  const char* library;  // nullptr for the globals
  const char* function;
  lua_CFunction wrapper;
};

constexpr Guard kGuards[] = {
    {nullptr, "setmetatable", GuardedSetmetatable},
    {LUA_STRLIBNAME, "find", GuardedFind},     {LUA_STRLIBNAME, "match", GuardedMatch},
    {LUA_STRLIBNAME, "gmatch", GuardedGmatch}, {LUA_STRLIBNAME, "gsub", GuardedGsub},
    {LUA_STRLIBNAME, "rep", GuardedRep},       {LUA_TABLIBNAME, "insert", GuardedInsert},
    {LUA_TABLIBNAME, "remove", GuardedRemove}, {LUA_TABLIBNAME, "sort", GuardedSort},
};

struct Removed {
  const char* library;  // nullptr for the globals
  const char* function;
};

constexpr Removed kRemoved[] = {
    {nullptr, "load"},           {nullptr, "loadfile"},  {nullptr, "dofile"},
    {nullptr, "collectgarbage"}, {nullptr, "print"},     {nullptr, "warn"},
    {nullptr, "rawset"},         {nullptr, "rawget"},    {nullptr, "rawlen"},
    {LUA_STRLIBNAME, "dump"},    {LUA_TABLIBNAME, "move"},
};

// Pushes the global table or one library table.
void PushLibrary(lua_State* L, const char* library) {
  if (library == nullptr) {
    lua_pushglobaltable(L);
  } else {
    lua_getglobal(L, library);
  }
}

}  // namespace

int OpenSandboxLibraries(lua_State* L) {
  const luaL_Reg libraries[] = {
      {LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
      {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
      {LUA_UTF8LIBNAME, luaopen_utf8},
  };
  for (const luaL_Reg& library : libraries) {
    luaL_requiref(L, library.name, library.func, /*glb=*/1);
    lua_pop(L, 1);
  }

  for (const Removed& removed : kRemoved) {
    PushLibrary(L, removed.library);
    lua_pushnil(L);
    lua_setfield(L, -2, removed.function);
    lua_pop(L, 1);
  }

  for (const Guard& guard : kGuards) {
    PushLibrary(L, guard.library);
    lua_getfield(L, -1, guard.function);
    lua_pushcclosure(L, guard.wrapper, 1);
    lua_setfield(L, -2, guard.function);
    lua_pop(L, 1);
  }

  lua_pushcfunction(L, ReadOnlyAwareNext);
  lua_setglobal(L, "next");
  lua_pushcfunction(L, SafeXpcall);
  lua_setglobal(L, "xpcall");

  // Strings share one metatable whose __index is the string library. Locking it keeps rules from
  // replacing methods behind other code's back and from reaching the library through it.
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);
  return 0;
}

}  // namespace advisor
