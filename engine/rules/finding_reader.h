// Turns what a rule's check returned into Finding structs, validating every field: a rule is
// untrusted input, and a typo such as `sevrity` or `recipie` must fail loudly rather than vanish.
#pragma once

#include <string>
#include <vector>

#include <lua.hpp>

#include "engine/model/finding.h"

namespace advisor {

// At most this many findings of one rule reach the report; more is a rule bug, not advice.
constexpr std::size_t kMaxFindingsPerRule = 20;

struct FindingsRead {
  std::vector<Finding> findings;  // the valid ones, in the rule's order, `rule` filled in
  std::vector<std::string> problems;  // one line each, e.g. "finding 2: unknown field 'sevrity'"
};

// Reads the value at `index`: nil (no findings) or a list of finding tables. Uses only API calls
// that neither allocate nor run Lua code, so it is safe outside LuaSandbox::Call.
FindingsRead ReadFindings(lua_State* L, int index, const std::string& rule_id);

}  // namespace advisor
