#include "engine/script/compile_cache.h"

#include <unistd.h>

namespace advisor {
namespace {

constexpr char kPrefix[] = "TORCHINDUCTOR_";
constexpr char kCacheDir[] = "TORCHINDUCTOR_CACHE_DIR";

}  // namespace

std::map<std::string, std::string> InductorEnvironment() {
  std::map<std::string, std::string> found;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::size_t equals = text.find('=');
    if (equals != std::string::npos && text.rfind(kPrefix, 0) == 0) {
      found.emplace(text.substr(0, equals), text.substr(equals + 1));
    }
  }
  return found;
}

CompileCacheSettings CompileCacheEnvironment(const std::string& folder,
                                             const std::map<std::string, std::string>& user) {
  CompileCacheSettings settings;
  const std::map<std::string, std::string> wanted = {{kCacheDir, folder},
                                                     {"TORCHINDUCTOR_FX_GRAPH_CACHE", "1"}};
  for (const auto& [name, value] : wanted) {
    if (user.count(name) == 0) settings.env.emplace(name, value);
  }
  for (const auto& [name, value] : user) {
    if (wanted.count(name) != 0 || name.find("CACHE") != std::string::npos) {
      settings.kept.push_back(name + "=" + value);
    }
  }
  return settings;
}

std::string DescribeCompileCache(const CompileCacheSettings& settings) {
  const auto folder = settings.env.find(kCacheDir);
  std::string line =
      folder != settings.env.end()
          ? "torch.compile's caches in " + folder->second +
                ", shared by every run of the autotest and removed after it"
          : "torch.compile's caches where your TORCHINDUCTOR_CACHE_DIR says, shared by every run";
  if (!settings.kept.empty()) {
    line += "; your settings kept:";
    for (const std::string& setting : settings.kept) line += " " + setting;
  }
  return line;
}

}  // namespace advisor
