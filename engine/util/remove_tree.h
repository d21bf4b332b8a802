// Removing a folder and everything in it, without std::filesystem::remove_all: PyTorch's wheels
// export their own copy of std::filesystem from libtorch.so, a program linking it binds to that
// copy, and with the 2.11 wheel and g++ 13 its remove_all crashed on a folder holding a file.
#pragma once

#include <string>

namespace advisor {

// Best effort: what cannot be removed stays. Symbolic links are removed, never followed.
void RemoveTree(const std::string& path);

}  // namespace advisor
