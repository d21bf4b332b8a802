#include "engine/trace_analysis/module_markers.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>

#include "engine/util/printable_text.h"

namespace advisor {

namespace {

// The start of a path too long to quote whole.
std::string Quoted(const ModulePath& path) {
  constexpr std::size_t kShown = 80;
  const std::string shown = path.Shown();
  return "'" + PrintableLine(shown.size() <= kShown ? shown : shown.substr(0, kShown) + "...") +
         "'";
}

}  // namespace

ModuleMarkers MarkersOfModuleRanges(std::vector<ModuleRange> ranges, const ModuleLimits& limits) {
  // Per thread in start order, the enclosing range first at a tie.
  std::stable_sort(ranges.begin(), ranges.end(), [](const ModuleRange& a, const ModuleRange& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns > b.end_ns;
  });
  ModuleMarkers result;
  struct Open {
    ModulePath path;
    TimeNs end_ns;
  };
  std::vector<Open> open;
  std::unordered_set<ModulePath> paths;  // one for each module, however many ranges call it
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
    if (open.size() >= limits.max_depth) {
      throw ModuleNestingError("module ranges nest deeper than " +
                               std::to_string(limits.max_depth) + " levels (at " +
                               Quoted(open.back().path) + ")");
    }
    const ModulePath parent = open.empty() ? ModulePath() : open.back().path;
    // A component that already spells its parent's path ("encoder.attn" inside "encoder") is a
    // whole path, as labels written from module.named_modules() are.
    std::string_view name = range.component;
    if (parent.PrefixesDotted(name)) name.remove_prefix(parent.Size() + 1);
    const ModulePath& path = *paths.insert(parent.Child(name)).first;
    result.markers.push_back({path, MarkerKind::kForwardEnter, range.thread, range.start_ns});
    result.markers.push_back({path, MarkerKind::kForwardExit, range.thread, range.end_ns});
    if (!range.type.empty()) result.types.emplace(path, range.type);
    open.push_back({path, range.end_ns});
  }
  return result;
}

}  // namespace advisor
