#include "engine/analysis/growth_line.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

#include "engine/analysis/window_memory.h"

namespace advisor {

std::optional<LineKeepingMemory> LineKeepingTheMost(const LabelledSteps& labelled) {
  const Timeline& timeline = labelled.timeline;
  std::map<std::tuple<std::string, int>, std::pair<std::int64_t, const SourceLocation*>> by_line;
  for (const KeptAllocation& kept : KeptAcrossSteps(timeline)) {
    // Label ranges nest on a thread: the innermost is the one that started last around it.
    const OpEvent* innermost = nullptr;
    const SourceLocation* source = nullptr;
    for (const auto& [index, location] : labelled.labels) {
      const OpEvent& range = timeline.ops[index];
      if (range.thread != kept.thread || range.start_ns > kept.time_ns ||
          kept.time_ns >= range.end_ns) {
        continue;
      }
      if (innermost == nullptr || range.start_ns >= innermost->start_ns) {
        innermost = &range;
        source = &location;
      }
    }
    if (source == nullptr) continue;
    auto& line = by_line[{source->file, source->line}];
    line.first += kept.bytes;
    line.second = source;
  }
  std::optional<LineKeepingMemory> most;
  std::int64_t most_bytes = 0;
  for (const auto& [where, line] : by_line) {
    if (line.first <= most_bytes) continue;
    most_bytes = line.first;
    // Kept in each labelled step but the last.
    const double steps = static_cast<double>(timeline.steps.size() - 1);
    most = LineKeepingMemory{*line.second,
                             static_cast<double>(line.first) / (1024.0 * 1024.0) / steps};
  }
  return most;
}

}  // namespace advisor
