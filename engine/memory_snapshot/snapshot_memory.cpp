#include "engine/memory_snapshot/snapshot_memory.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/memory_snapshot/frame_attribution.h"
#include "engine/memory_snapshot/memory_timeline.h"
#include "engine/memory_snapshot/peak_layout.h"

namespace advisor {
namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;
constexpr std::size_t kUserFramesShown = 10;
constexpr std::size_t kTimelinePoints = 480;
// Ranges under the chart: the widest, since a range narrower than a pixel shows nothing.
constexpr std::size_t kSpansDrawn = 600;

enum class Category { kBeforeHistory, kForward, kBackward, kOptimizer, kUnknown };

const char* CategoryName(Category category) {
  switch (category) {
    case Category::kBeforeHistory:
      return "before_history";
    case Category::kForward:
      return "forward";
    case Category::kBackward:
      return "backward";
    case Category::kOptimizer:
      return "optimizer";
    case Category::kUnknown:
      break;
  }
  return "unknown";
}

Category CategoryOfPhase(MemoryPhase phase) {
  switch (phase) {
    case MemoryPhase::kForward:
      return Category::kForward;
    case MemoryPhase::kBackward:
      return Category::kBackward;
    case MemoryPhase::kOptimizer:
      return Category::kOptimizer;
    case MemoryPhase::kNone:
      break;
  }
  return Category::kUnknown;
}

double Mb(std::int64_t bytes) { return bytes / kBytesPerMb; }

// In double: a hostile file's times may be any two int64s, whose difference an int64 may not hold.
double MsBetween(std::int64_t from_us, std::int64_t to_us) {
  return (static_cast<double>(to_us) - static_cast<double>(from_us)) / 1e3;
}

// Each event's time in ms since the first; the index where the entries have no time. A clock
// that steps back (entries are in the allocator's order) is held where it was.
std::vector<double> EventTimes(const MemorySnapshot& snapshot, std::size_t device,
                               std::int64_t* origin_us) {
  const std::vector<TraceEntry>& entries = snapshot.device_traces[device];
  std::vector<double> times(entries.size());
  *origin_us = snapshot.timed && !entries.empty() ? entries.front().time_us : 0;
  double latest = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double time =
        snapshot.timed ? MsBetween(*origin_us, entries[i].time_us) : static_cast<double>(i);
    latest = std::max(latest, time);
    times[i] = latest;
  }
  return times;
}

struct Attributed {
  Category category = Category::kUnknown;
  std::uint32_t path = 0;
};

std::vector<Attributed> Attribute(const DeviceReplay& replay, const EventContext& context,
                                  const std::vector<StackFacts>& stacks) {
  std::vector<Attributed> attributed(replay.allocations.size());
  for (std::size_t a = 0; a < replay.allocations.size(); ++a) {
    const ReplayedAllocation& allocation = replay.allocations[a];
    if (allocation.start == kBeforeHistory) {
      attributed[a].category = Category::kBeforeHistory;
      continue;
    }
    const auto event = static_cast<std::size_t>(allocation.start);
    const MemoryPhase by_range = context.phase[event];
    attributed[a].category =
        CategoryOfPhase(by_range != MemoryPhase::kNone ? by_range : stacks[allocation.stack].phase);
    attributed[a].path = context.path[event];
  }
  return attributed;
}

// Shares sorted by bytes, most first (then by name, for a stable report).
std::vector<MemoryShare> Sorted(const std::map<std::string, MemoryShare>& shares) {
  std::vector<MemoryShare> sorted;
  for (const auto& [name, share] : shares) sorted.push_back(share);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const MemoryShare& a, const MemoryShare& b) { return a.mb > b.mb; });
  return sorted;
}

void Add(std::map<std::string, MemoryShare>& shares, const std::string& name, std::int64_t bytes) {
  MemoryShare& share = shares[name];
  share.name = name;
  share.mb += Mb(bytes);
  ++share.allocations;
}

// The phase the peak fell in: the ranges' where they say, else that of the allocation that
// reached it.
std::string PhaseOfPeak(const DeviceReplay& replay, const EventContext& context,
                        const std::vector<Attributed>& attributed) {
  if (replay.peak_event == kBeforeHistory) return "";
  const auto event = static_cast<std::size_t>(replay.peak_event);
  if (context.phase[event] != MemoryPhase::kNone) return MemoryPhaseName(context.phase[event]);
  for (std::size_t a = 0; a < replay.allocations.size(); ++a) {
    if (replay.allocations[a].start != replay.peak_event) continue;
    const Category category = attributed[a].category;
    return category == Category::kUnknown ? "" : CategoryName(category);
  }
  return "";
}

MemoryPeak PeakOf(const MemorySnapshot& snapshot, const DeviceReplay& replay,
                  const EventContext& context, const std::vector<StackFacts>& stacks,
                  const std::vector<Attributed>& attributed, const std::vector<double>& times) {
  MemoryPeak peak;
  const std::int64_t event = replay.peak_event;
  peak.mb = Mb(replay.peak_bytes);
  peak.time_ms = event == kBeforeHistory ? 0 : times[static_cast<std::size_t>(event)];
  peak.reserved_mb = Mb(replay.ReservedAfter(event));
  if (const auto largest = LargestFreeBlockAfter(snapshot, replay, event)) {
    peak.largest_free_block_mb = Mb(*largest);
  }
  peak.phase = PhaseOfPeak(replay, context, attributed);

  std::map<std::string, MemoryShare> by_category, by_frame, by_path;
  for (std::size_t a = 0; a < replay.allocations.size(); ++a) {
    const ReplayedAllocation& allocation = replay.allocations[a];
    if (!allocation.LiveAfter(event)) continue;
    Add(by_category, CategoryName(attributed[a].category), allocation.size);
    if (const auto frame = stacks[allocation.stack].user_frame) {
      Add(by_frame, FrameText(snapshot.frames[*frame]), allocation.size);
    }
    if (attributed[a].path != 0) Add(by_path, context.paths[attributed[a].path], allocation.size);
  }
  peak.by_category = Sorted(by_category);
  if (!peak.by_category.empty()) peak.category = peak.by_category.front().name;
  peak.by_user_frame = Sorted(by_frame);
  if (peak.by_user_frame.size() > kUserFramesShown) peak.by_user_frame.resize(kUserFramesShown);
  const std::vector<MemoryShare> paths = Sorted(by_path);
  if (!paths.empty()) peak.path = paths.front().name;
  return peak;
}

// The first event of the backward pass nearest the peak: the one the peak is in, else the next
// after a forward peak, else the last before it. kAfterHistory where no range says backward.
std::int64_t BackwardStart(const DeviceReplay& replay, const EventContext& context) {
  const std::vector<MemoryPhase>& phase = context.phase;
  const auto n = static_cast<std::int64_t>(phase.size());
  const std::int64_t peak = std::max<std::int64_t>(replay.peak_event, 0);
  const auto backward = [&](std::int64_t i) {
    return phase[static_cast<std::size_t>(i)] == MemoryPhase::kBackward;
  };
  const auto run_start = [&](std::int64_t i) {
    while (i > 0 && backward(i - 1)) --i;
    return i;
  };
  if (peak >= n) return kAfterHistory;
  if (backward(peak)) return run_start(peak);
  if (phase[static_cast<std::size_t>(peak)] != MemoryPhase::kOptimizer) {
    for (std::int64_t i = peak + 1; i < n; ++i) {
      if (backward(i)) return i;
    }
  }
  for (std::int64_t i = peak - 1; i >= 0; --i) {
    if (backward(i)) return run_start(i);
  }
  return kAfterHistory;
}

// Memory per module instance: the bytes its forward (and backward) allocations held live, at
// their most and when the backward pass began.
std::vector<ModuleMemory> ModulesOf(const DeviceReplay& replay, const EventContext& context,
                                    const std::vector<Attributed>& attributed) {
  const std::size_t paths = context.paths.size();
  std::vector<std::int64_t> forward(paths), backward(paths), forward_peak(paths),
      backward_peak(paths), kept(paths);
  std::vector<bool> seen(paths), seen_backward(paths);
  // The allocation each event starts and the one it ends: an event does at most one of each
  // (an alloc at a live address ends the one there).
  constexpr std::size_t kNone = SIZE_MAX;
  const std::size_t n = context.phase.size();
  std::vector<std::size_t> started(n, kNone), ended(n, kNone);
  for (std::size_t a = 0; a < replay.allocations.size(); ++a) {
    if (attributed[a].path == 0) continue;
    const ReplayedAllocation& allocation = replay.allocations[a];
    started[static_cast<std::size_t>(allocation.start)] = a;
    if (allocation.end != kAfterHistory) ended[static_cast<std::size_t>(allocation.end)] = a;
  }
  const std::int64_t backward_start = BackwardStart(replay, context);
  const auto change = [&](std::size_t a, int sign) {
    const std::uint32_t path = attributed[a].path;
    const std::int64_t bytes = sign * replay.allocations[a].size;
    if (attributed[a].category == Category::kForward) {
      forward[path] += bytes;
      forward_peak[path] = std::max(forward_peak[path], forward[path]);
      seen[path] = true;
    } else if (attributed[a].category == Category::kBackward) {
      backward[path] += bytes;
      backward_peak[path] = std::max(backward_peak[path], backward[path]);
      seen_backward[path] = true;
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (static_cast<std::int64_t>(i) == backward_start) kept = forward;
    if (ended[i] != kNone) change(ended[i], -1);
    if (started[i] != kNone) change(started[i], +1);
  }
  std::vector<ModuleMemory> modules;
  for (std::size_t path = 1; path < paths; ++path) {
    if (!seen[path] && !seen_backward[path]) continue;
    ModuleMemory module;
    module.path = context.paths[path];
    if (seen[path]) {
      module.forward_peak_mb = Mb(forward_peak[path]);
      if (backward_start != kAfterHistory) module.kept_for_backward_mb = Mb(kept[path]);
    }
    if (seen_backward[path]) module.backward_peak_mb = Mb(backward_peak[path]);
    modules.push_back(std::move(module));
  }
  std::stable_sort(
      modules.begin(), modules.end(), [](const ModuleMemory& a, const ModuleMemory& b) {
        return a.kept_for_backward_mb.value_or(-1) > b.kept_for_backward_mb.value_or(-1) ||
               (a.kept_for_backward_mb == b.kept_for_backward_mb &&
                a.forward_peak_mb.value_or(-1) > b.forward_peak_mb.value_or(-1));
      });
  return modules;
}

std::vector<MemorySpan> SpansOf(const EventContext& context, std::int64_t origin_us) {
  std::vector<EventContext::Span> spans = context.spans;
  if (spans.size() > kSpansDrawn) {
    std::stable_sort(spans.begin(), spans.end(),
                     [](const EventContext::Span& a, const EventContext::Span& b) {
                       return MsBetween(a.start_us, a.end_us) > MsBetween(b.start_us, b.end_us);
                     });
    spans.resize(kSpansDrawn);
  }
  std::stable_sort(spans.begin(), spans.end(),
                   [](const EventContext::Span& a, const EventContext::Span& b) {
                     return a.start_us < b.start_us;
                   });
  std::vector<MemorySpan> drawn;
  for (const EventContext::Span& span : spans) {
    MemorySpan out;
    out.kind = span.kind;
    out.label = span.kind == MemorySpan::Kind::kPhase ? MemoryPhaseName(span.phase)
                                                      : context.paths[span.path];
    out.depth = span.depth;
    out.start_ms = MsBetween(origin_us, span.start_us);
    out.end_ms = MsBetween(origin_us, span.end_us);
    drawn.push_back(std::move(out));
  }
  return drawn;
}

MemoryHistory HistoryOf(const MemorySnapshot& snapshot, const DeviceReplay& replay,
                        const EventContext& context, const std::vector<double>& times,
                        std::int64_t origin_us) {
  MemoryHistory history;
  const std::vector<TraceEntry>& entries = snapshot.device_traces[replay.device];
  history.device = static_cast<int>(replay.device);
  history.events = static_cast<std::int64_t>(entries.size());
  history.timed = snapshot.timed;
  history.timeline = TimelineOf(replay, times, kTimelinePoints);
  if (context.annotated) history.spans = SpansOf(context, origin_us);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].action != TraceAction::kOom) continue;
    OutOfMemory oom;
    oom.time_ms = times[i];
    oom.requested_mb = Mb(entries[i].size);
    oom.device_free_mb = Mb(static_cast<std::int64_t>(entries[i].addr));
    oom.allocated_mb = Mb(replay.allocated[i]);
    oom.reserved_mb = Mb(replay.reserved[i]);
    history.ooms.push_back(oom);
  }
  history.end_replayed_mb = Mb(replay.end_replayed_bytes);
  history.end_segments_mb = Mb(replay.end_segments_bytes);
  return history;
}

}  // namespace

MemoryStats MemoryOfSnapshot(const MemorySnapshot& snapshot, const DeviceReplay& replay,
                             const EventContext& context) {
  const std::vector<StackFacts> stacks = FactsOfStacks(snapshot);
  const std::vector<Attributed> attributed = Attribute(replay, context, stacks);
  std::int64_t origin_us = 0;
  const std::vector<double> times = EventTimes(snapshot, replay.device, &origin_us);

  MemoryStats memory;
  memory.peak = PeakOf(snapshot, replay, context, stacks, attributed, times);
  memory.peak_allocated_mb = memory.peak->mb;
  memory.peak_reserved_mb = Mb(replay.peak_reserved_bytes);
  memory.num_device_allocs = replay.segment_allocs;
  if (context.annotated) memory.modules = ModulesOf(replay, context, attributed);
  memory.history = HistoryOf(snapshot, replay, context, times, origin_us);
  return memory;
}

}  // namespace advisor
