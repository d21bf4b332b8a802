#include "engine/model/memory_holders.h"

#include <algorithm>
#include <vector>

namespace advisor {
namespace {

std::vector<MemoryShare> MostFirst(const LiveSums& sums) {
  std::vector<MemoryShare> shares;
  for (const auto& [name, sum] : sums) {
    if (sum.first > 0) shares.push_back({name, sum.first, sum.second});
  }
  std::stable_sort(shares.begin(), shares.end(),
                   [](const MemoryShare& a, const MemoryShare& b) { return a.mb > b.mb; });
  return shares;
}

}  // namespace

void NameHolders(const LiveSums& categories, const LiveSums& modules, MemoryPeak& live) {
  live.by_category = MostFirst(categories);
  if (!live.by_category.empty()) live.category = live.by_category.front().name;
  live.by_module = MostFirst(modules);
  if (!live.by_module.empty()) {
    live.path = live.by_module.front().name;
    for (std::size_t i = 1; i < live.by_module.size(); ++i) {
      if (live.by_module[i].mb < live.by_module.front().mb * (1 - kTiedShare)) break;
      live.tied_with.push_back(live.by_module[i].name);
    }
  }
  if (live.by_module.size() > kModulesAtPeak) live.by_module.resize(kModulesAtPeak);
}

}  // namespace advisor
