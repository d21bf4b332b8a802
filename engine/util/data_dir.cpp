#include "engine/util/data_dir.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace advisor {
namespace fs = std::filesystem;

namespace {

fs::path BinaryDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

bool IsDir(const fs::path& path) {
  std::error_code ec;
  return !path.empty() && fs::is_directory(path, ec);
}

}  // namespace

std::string FindDataDir(const std::string& name) {
  std::string variable = "ADVISOR_";
  for (char c : name) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  variable += "_DIR";
  if (const char* configured = std::getenv(variable.c_str()); configured && *configured) {
    return IsDir(configured) ? std::string(configured) : std::string();
  }
  const fs::path binary_dir = BinaryDir();
  for (const fs::path& candidate :
       {binary_dir / name, binary_dir / ".." / "share" / "advisor" / name}) {
    if (IsDir(candidate)) return fs::weakly_canonical(candidate).string();
  }
  return {};
}

}  // namespace advisor
