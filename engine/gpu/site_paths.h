// Naming the module of a sync or copy site. The baseline window measures the sites without
// markers, so their module path is empty; the levels' windows see the same sites inside
// instrumented modules. Each baseline site takes the deepest path any level window gave a site
// of the same kind, op and phase; its timings stay the baseline's.
#pragma once

#include <string>
#include <vector>

#include "engine/report/report.h"

namespace advisor {

namespace site_paths_detail {
inline int Depth(const std::string& path) {
  if (path.empty()) return 0;
  int depth = 1;
  for (char c : path) depth += c == '.';
  return depth;
}
inline bool SameSite(const SyncSite& a, const SyncSite& b) {
  return a.kind == b.kind && a.op == b.op && a.phase == b.phase;
}
inline bool SameSite(const CopySite& a, const CopySite& b) {
  return a.op == b.op && a.phase == b.phase && a.pageable == b.pageable;
}
}  // namespace site_paths_detail

// Site is SyncSite or CopySite.
template <typename Site>
void RefineSitePaths(std::vector<Site>& baseline, const std::vector<Site>& level) {
  using site_paths_detail::Depth;
  for (Site& site : baseline) {
    for (const Site& seen : level) {
      if (site_paths_detail::SameSite(site, seen) && Depth(seen.path) > Depth(site.path)) {
        site.path = seen.path;
      }
    }
  }
}

}  // namespace advisor
