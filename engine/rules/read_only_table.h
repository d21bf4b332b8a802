// Facts reach rules as read-only Lua tables. Each JSON object or array becomes an empty proxy
// table whose metatable reads from a hidden table and rejects writes, so `facts.step.median_ms = 0`
// or `table.insert(facts.ops, x)` raises "facts are read-only". pairs, ipairs, # and next work as
// on plain tables; getmetatable returns "read-only" and setmetatable fails.
#pragma once

#include <lua.hpp>
#include <nlohmann/json.hpp>

namespace advisor {

// Pushes `value` as a Lua value: null as nil (object members that are null are left out, so an
// unmeasured fact reads as nil), booleans, integers, floats and strings as themselves, objects
// and arrays (1-based) as read-only tables. May raise a Lua error (memory): call it inside
// LuaSandbox::Call.
void PushReadOnlyJson(lua_State* L, const nlohmann::json& value);

// True when the value at `index` is a read-only proxy made by PushReadOnlyJson.
bool IsReadOnlyProxy(lua_State* L, int index);

// `next` for rules: on a read-only proxy it walks the hidden table, elsewhere it is Lua's next.
int ReadOnlyAwareNext(lua_State* L);

}  // namespace advisor
