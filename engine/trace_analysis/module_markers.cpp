#include "engine/trace_analysis/module_markers.h"

#include <algorithm>

namespace advisor {

ModuleMarkers MarkersOfModuleRanges(std::vector<ModuleRange> ranges) {
  // Per thread in start order, the enclosing range first at a tie.
  std::stable_sort(ranges.begin(), ranges.end(), [](const ModuleRange& a, const ModuleRange& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns > b.end_ns;
  });
  ModuleMarkers result;
  struct Open {
    std::string path;
    TimeNs end_ns;
  };
  std::vector<Open> open;
  ThreadId thread = 0;
  for (const ModuleRange& range : ranges) {
    if (open.empty() || range.thread != thread) {
      open.clear();
      thread = range.thread;
    }
    // Ranges that ended, and ranges this one only overlaps (a broken trace), enclose it not.
    while (!open.empty() &&
           (open.back().end_ns <= range.start_ns || open.back().end_ns < range.end_ns)) {
      open.pop_back();
    }
    // A component that already spells its parent's path ("encoder.attn" inside "encoder") is a
    // whole path, as labels written from module.named_modules() are.
    const bool whole_path =
        !open.empty() && range.component.size() > open.back().path.size() &&
        range.component.compare(0, open.back().path.size(), open.back().path) == 0 &&
        range.component[open.back().path.size()] == '.';
    const std::string path = open.empty() || whole_path
                                 ? range.component
                                 : open.back().path + "." + range.component;
    result.markers.push_back({path, MarkerKind::kForwardEnter, range.thread, range.start_ns});
    result.markers.push_back({path, MarkerKind::kForwardExit, range.thread, range.end_ns});
    if (!range.type.empty()) result.types.emplace(path, range.type);
    open.push_back({path, range.end_ns});
  }
  return result;
}

}  // namespace advisor
