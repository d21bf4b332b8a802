#include "engine/facts/host_allocator.h"

#include <algorithm>
#include <cstdlib>

namespace advisor {
namespace {

constexpr const char* kVariables[] = {"LD_PRELOAD", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_",
                                      "GLIBC_TUNABLES"};

std::string ValueOf(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `tunables` is "name=value:name=value"; the value of `name`, "" when absent.
std::string TunableValue(const std::string& tunables, const std::string& name) {
  std::size_t start = 0;
  while (start <= tunables.size()) {
    const std::size_t end = std::min(tunables.find(':', start), tunables.size());
    const std::string entry = tunables.substr(start, end - start);
    if (entry.compare(0, name.size() + 1, name + "=") == 0) return entry.substr(name.size() + 1);
    start = end + 1;
  }
  return "";
}

bool KeepsFreedMemory(const std::map<std::string, std::string>& env) {
  const std::string preload = ValueOf(env, "LD_PRELOAD");
  if (Contains(preload, "jemalloc") || Contains(preload, "tcmalloc") ||
      Contains(preload, "mimalloc")) {
    return true;
  }
  const std::string tunables = ValueOf(env, "GLIBC_TUNABLES");
  std::string mmap_max = ValueOf(env, "MALLOC_MMAP_MAX_");
  std::string trim = ValueOf(env, "MALLOC_TRIM_THRESHOLD_");
  if (mmap_max.empty()) mmap_max = TunableValue(tunables, "glibc.malloc.mmap_max");
  if (trim.empty()) trim = TunableValue(tunables, "glibc.malloc.trim_threshold");
  return mmap_max == "0" && !trim.empty();
}

}  // namespace

std::map<std::string, std::string> ReadHostAllocatorEnvironment() {
  std::map<std::string, std::string> env;
  for (const char* name : kVariables) {
    if (const char* value = std::getenv(name)) env[name] = value;
  }
  return env;
}

nlohmann::json HostAllocatorFacts(const std::map<std::string, std::string>& env) {
  return {{"env", env}, {"keeps_freed_memory", KeepsFreedMemory(env)}};
}

}  // namespace advisor
