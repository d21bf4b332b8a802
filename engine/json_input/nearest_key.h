// The allowed key that an unknown key most likely misspells: a misspelt "determinstic" must not
// run non-deterministic, and the error should say what was meant.
#pragma once

#include <string>
#include <vector>

namespace advisor {

// The allowed key within two edits of `key` and fewer than half its own length away; "" if none.
std::string NearestKey(const std::string& key, const std::vector<std::string>& allowed);

}  // namespace advisor
