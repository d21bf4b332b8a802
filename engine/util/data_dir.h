// Where advisor finds the files it ships (rules/, recipes/, demo/): beside the binary in a build
// tree, or under share/advisor in an install, so the binary works from any working directory.
#pragma once

#include <string>

namespace advisor {

// Returns the first existing folder among $ADVISOR_<NAME>_DIR (name upper-cased),
// <binary dir>/<name> and <binary dir>/../share/advisor/<name>; "" when none exists.
std::string FindDataDir(const std::string& name);

}  // namespace advisor
