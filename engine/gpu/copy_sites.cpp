#include "engine/gpu/copy_sites.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "engine/gpu/op_lookup.h"

namespace advisor {

std::vector<CopySite> FindCopySites(const Timeline& timeline, const OpPlacements& placements) {
  const int steps = static_cast<int>(timeline.steps.size());
  const bool uploads =
      std::any_of(timeline.memcpys.begin(), timeline.memcpys.end(),
                  [](const MemcpyEvent& copy) { return copy.kind == MemcpyKind::kHostToDevice; });
  if (steps == 0 || !uploads) return {};  // no op to look up
  const OpLookup lookup(timeline);

  struct Total {
    int count = 0;
    std::uint64_t bytes = 0;
    TimeNs copy_ns = 0;
    std::set<int> steps_seen;
  };
  std::map<std::tuple<ModulePath, std::string, Phase, bool>, Total> totals;
  for (const MemcpyEvent& copy : timeline.memcpys) {
    if (copy.kind != MemcpyKind::kHostToDevice) continue;
    const auto origin = OriginOf(copy.external_id, lookup, timeline, placements);
    if (!origin || origin->step < 0) continue;
    Total& total = totals[{origin->module, origin->op, origin->phase, copy.pageable_host}];
    ++total.count;
    total.bytes += copy.bytes;
    total.copy_ns += copy.end_ns - copy.start_ns;
    total.steps_seen.insert(origin->step);
  }

  std::vector<CopySite> sites;
  for (const auto& [key, total] : totals) {
    if (static_cast<int>(total.steps_seen.size()) < steps) continue;
    CopySite site;
    const auto& [module, op, phase, pageable] = key;
    site.path = module.Shown();
    site.op = op;
    site.phase = PhaseName(phase);
    site.pageable = pageable;
    site.count_per_step = std::max(1, static_cast<int>(std::lround(double(total.count) / steps)));
    site.bytes_per_step = static_cast<double>(total.bytes) / steps;
    site.ms = total.copy_ns * 1e-6 / steps;
    sites.push_back(std::move(site));
  }
  std::stable_sort(sites.begin(), sites.end(),
                   [](const CopySite& a, const CopySite& b) { return a.ms > b.ms; });
  return sites;
}

}  // namespace advisor
