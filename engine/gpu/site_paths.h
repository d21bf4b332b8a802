// Naming the module of a sync or copy site. The baseline window measures the sites without
// markers, so their module path is empty. One more window, with every module instrumented, sees
// the same sites inside their innermost modules: each baseline site takes the path of the
// costliest site of the same kind, op and phase there, and keeps the baseline's timings.
#pragma once

#include <string>
#include <vector>

#include "engine/model/run_report.h"

namespace advisor {

namespace site_paths_detail {
inline bool SameSite(const SyncSite& a, const SyncSite& b) {
  return a.kind == b.kind && a.op == b.op && a.phase == b.phase;
}
inline bool SameSite(const CopySite& a, const CopySite& b) {
  return a.op == b.op && a.phase == b.phase && a.pageable == b.pageable;
}
inline double Cost(const SyncSite& site) { return site.wait_ms; }
inline double Cost(const CopySite& site) { return site.ms; }
}  // namespace site_paths_detail

// Site is SyncSite or CopySite. A site that `instrumented` does not have keeps its path.
template <typename Site>
void NameSitePaths(std::vector<Site>& baseline, const std::vector<Site>& instrumented) {
  using site_paths_detail::Cost;
  for (Site& site : baseline) {
    const Site* costliest = nullptr;
    for (const Site& seen : instrumented) {
      if (!site_paths_detail::SameSite(site, seen) || seen.path.empty()) continue;
      if (costliest == nullptr || Cost(seen) > Cost(*costliest)) costliest = &seen;
    }
    if (costliest != nullptr) site.path = costliest->path;
  }
}

}  // namespace advisor
