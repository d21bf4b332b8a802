// The Lua library surface a rule sees. Only base, string, table, math and utf8, and from those
// nothing that reaches files, the process, other code or the garbage collector:
//   removed: load, loadfile, dofile, collectgarbage, print, warn, rawset, rawget, rawlen,
//            string.dump, table.move
//   replaced: next (also walks read-only fact tables), xpcall (calls the handler after the
//            error unwinds), and guarded versions of setmetatable (no __gc), string.find,
//            string.match, string.gmatch, string.gsub, string.rep, table.insert, table.remove and
//            table.sort, which could otherwise run where the hook cannot interrupt them (see
//            sandbox_libraries.cpp)
//   locked: the string metatable (getmetatable("") returns "read-only")
#pragma once

#include <lua.hpp>

namespace advisor {

// A lua_CFunction for LuaSandbox::Call: opens the libraries above into the state's globals.
int OpenSandboxLibraries(lua_State* L);

}  // namespace advisor
