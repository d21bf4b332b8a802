// The `advisor` table of small helpers every rule can call (documented in docs/rules.md). They
// hold no knowledge about training performance, only formatting and arithmetic that would
// otherwise be copied into every rule file.
#pragma once

#include <lua.hpp>

namespace advisor {

// A lua_CFunction for LuaSandbox::Call: defines the global `advisor` table.
int OpenRuleHelpers(lua_State* L);

}  // namespace advisor
