#include "engine/trace_analysis/advisor_window_modules.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace advisor {
namespace {

// How the bisection labels a level's second window (engine/bisect/bisection.cpp, MeasureAgain);
// a second window it did not follow says so after it, and is no level's.
constexpr std::string_view kMeasuredAgain = " (measured again)";

// "the children of trunk (looking ahead)" -> "the children of trunk": what the window
// instrumented, without what the bisection said of it (module paths hold no " (").
std::string_view Instrumented(std::string_view label) { return label.substr(0, label.find(" (")); }

// `later` is the level of `first` measured again, and the window the bisection followed.
bool FollowedRerun(const AdvisorWindow& first, const AdvisorWindow& later) {
  const std::string_view label = later.label;
  return Instrumented(label) == Instrumented(first.label) &&
         label.size() >= kMeasuredAgain.size() &&
         label.substr(label.size() - kMeasuredAgain.size()) == kMeasuredAgain;
}

// The window whose span holds `time`, of `windows` sorted by start.
std::optional<std::size_t> WindowAt(const std::vector<AdvisorWindow>& windows, TimeNs time) {
  const auto after =
      std::upper_bound(windows.begin(), windows.end(), time,
                       [](TimeNs t, const AdvisorWindow& window) { return t < window.start_ns; });
  if (after == windows.begin()) return std::nullopt;
  const auto window = std::prev(after);
  if (time > window->end_ns) return std::nullopt;
  return static_cast<std::size_t>(window - windows.begin());
}

}  // namespace

std::vector<StepRange> MeasuringSteps(const std::vector<AdvisorWindow>& windows,
                                      const std::vector<MarkerEvent>& markers,
                                      const std::vector<ModulePath>& paths, std::size_t steps) {
  std::vector<StepRange> ranges(paths.size(), StepRange{0, steps});
  if (windows.empty()) return ranges;
  std::unordered_map<ModulePath, std::set<std::size_t>> naming;  // the windows naming each path
  for (const MarkerEvent& marker : markers) {
    if (const std::optional<std::size_t> window = WindowAt(windows, marker.time_ns)) {
      naming[marker.path].insert(*window);
    }
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto named = naming.find(paths[i]);
    if (named == naming.end()) continue;
    const std::size_t first = *named->second.begin();
    std::size_t measuring = first;
    for (const std::size_t later : named->second) {
      if (later != first && FollowedRerun(windows[first], windows[later])) measuring = later;
    }
    const AdvisorWindow& window = windows[measuring];
    if (window.end_step > window.first_step) ranges[i] = {window.first_step, window.end_step};
  }
  return ranges;
}

}  // namespace advisor
