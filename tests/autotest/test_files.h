// Files the autotest suites write into a ScratchDir: recipes, result files and fake workers.
#pragma once

#include <sys/stat.h>

#include <fstream>
#include <string>

namespace advisor::testing {

inline std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A /bin/sh script; run it as {"/bin/sh", path, args...}.
inline std::string WriteScript(const std::string& path, const std::string& body) {
  WriteFile(path, "#!/bin/sh\n" + body + "\n");
  chmod(path.c_str(), 0755);
  return path;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace advisor::testing
