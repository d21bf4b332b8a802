// The environment of a child process: advisor's own, with some variables added or replaced.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace advisor {

// "NAME=value" entries: every variable of this process not named in `additions`, then additions.
std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& additions);

}  // namespace advisor
