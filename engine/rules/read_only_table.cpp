#include "engine/rules/read_only_table.h"

#include <string>

namespace advisor {
namespace {

// Its address marks the metatables of read-only proxies; rules cannot create light userdata, so
// they cannot forge the mark.
const char kProxyMark = 0;

// Replaces the proxy at `index` with its hidden table; leaves other values as they are.
void ResolveProxy(lua_State* L, int index) {
  index = lua_absindex(L, index);
  if (!IsReadOnlyProxy(L, index)) return;
  lua_getmetatable(L, index);
  lua_getfield(L, -1, "__index");
  lua_replace(L, index);
  lua_pop(L, 1);
}

int RejectWrite(lua_State* L) {
  if (lua_type(L, 2) == LUA_TSTRING) {
    return luaL_error(L, "facts are read-only (cannot set field '%s')", lua_tostring(L, 2));
  }
  return luaL_error(L, "facts are read-only");
}

int ProxyLength(lua_State* L) {
  ResolveProxy(L, 1);
  lua_pushinteger(L, static_cast<lua_Integer>(lua_rawlen(L, 1)));
  return 1;
}

int ProxyPairs(lua_State* L) {
  lua_pushcfunction(L, ReadOnlyAwareNext);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

void PushNumber(lua_State* L, const nlohmann::json& value) {
  if (value.is_number_integer() && value.is_number_unsigned()) {
    const auto unsigned_value = value.get<nlohmann::json::number_unsigned_t>();
    if (unsigned_value <= static_cast<nlohmann::json::number_unsigned_t>(LUA_MAXINTEGER)) {
      lua_pushinteger(L, static_cast<lua_Integer>(unsigned_value));
    } else {
      lua_pushnumber(L, static_cast<lua_Number>(unsigned_value));
    }
  } else if (value.is_number_integer()) {
    lua_pushinteger(L, static_cast<lua_Integer>(value.get<nlohmann::json::number_integer_t>()));
  } else {
    lua_pushnumber(L, value.get<double>());
  }
}

// Pushes the proxy for the hidden table on top of the stack, replacing it.
void WrapInProxy(lua_State* L) {
  lua_newtable(L);  // the proxy: always empty, so every read and write goes to the metatable
  lua_createtable(L, 0, 6);
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, RejectWrite);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, ProxyLength);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, ProxyPairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_pushboolean(L, 1);
  lua_rawsetp(L, -2, &kProxyMark);
  lua_setmetatable(L, -2);
  lua_remove(L, -2);
}

}  // namespace

void PushReadOnlyJson(lua_State* L, const nlohmann::json& value) {
  luaL_checkstack(L, 4, "facts nested too deeply");
  switch (value.type()) {
    case nlohmann::json::value_t::boolean:
      lua_pushboolean(L, value.get<bool>());
      return;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      PushNumber(L, value);
      return;
    case nlohmann::json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      lua_pushlstring(L, text.data(), text.size());
      return;
    }
    case nlohmann::json::value_t::array: {
      lua_createtable(L, static_cast<int>(value.size()), 0);
      lua_Integer index = 0;
      for (const nlohmann::json& element : value) {
        ++index;
        if (element.is_null()) continue;
        PushReadOnlyJson(L, element);
        lua_rawseti(L, -2, index);
      }
      WrapInProxy(L);
      return;
    }
    case nlohmann::json::value_t::object: {
      lua_createtable(L, 0, static_cast<int>(value.size()));
      for (auto member = value.begin(); member != value.end(); ++member) {
        if (member->is_null()) continue;
        const std::string& key = member.key();
        lua_pushlstring(L, key.data(), key.size());
        PushReadOnlyJson(L, *member);
        lua_rawset(L, -3);
      }
      WrapInProxy(L);
      return;
    }
    default:  // null, binary, discarded
      lua_pushnil(L);
      return;
  }
}

bool IsReadOnlyProxy(lua_State* L, int index) {
  if (!lua_getmetatable(L, index)) return false;
  const bool proxy = lua_rawgetp(L, -1, &kProxyMark) == LUA_TBOOLEAN;
  lua_pop(L, 2);
  return proxy;
}

int ReadOnlyAwareNext(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  ResolveProxy(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

}  // namespace advisor
