#include "engine/util/physical_cores.h"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

namespace advisor {
namespace {

// The number after "key<tabs>: " on a cpuinfo line, or -1 when the line is not that key's.
int FieldValue(const std::string& line, const std::string& key) {
  if (line.compare(0, key.size(), key) != 0) return -1;
  const std::size_t colon = line.find(':', key.size());
  if (colon == std::string::npos || line.find_first_not_of(" \t", key.size()) != colon) return -1;
  try {
    return std::stoi(line.substr(colon + 1));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

int CountPhysicalCores(const std::string& cpuinfo_text) {
  std::set<std::pair<int, int>> cores;
  std::istringstream lines(cpuinfo_text);
  std::string line;
  int package = -1;
  while (std::getline(lines, line)) {
    if (const int value = FieldValue(line, "physical id"); value >= 0) package = value;
    if (const int value = FieldValue(line, "core id"); value >= 0) cores.emplace(package, value);
  }
  return static_cast<int>(cores.size());
}

int PhysicalCoreCount() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string text((std::istreambuf_iterator<char>(cpuinfo)),
                         std::istreambuf_iterator<char>());
  int cores = CountPhysicalCores(text);
  if (cores == 0) cores = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    cores = std::min(cores, CPU_COUNT(&allowed));
  }
  return std::max(cores, 1);
}

}  // namespace advisor
