#include "engine/analysis/window_memory.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "engine/analysis/placement.h"
#include "engine/model/memory_holders.h"

namespace advisor {
namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;
constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

double Mb(std::int64_t bytes) { return static_cast<double>(bytes) / kBytesPerMb; }

// One call of an instrumented instance's forward, or its backward, on one thread.
struct InstanceSpan {
  std::string path;
  bool backward = false;
  ThreadId thread = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = kNever;
};

struct Allocation {
  std::int64_t bytes = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = kNever;  // never freed in the window
  int step = -1;           // -1: outside every step
  Phase phase = Phase::kOutside;
  ThreadId thread = 0;
  int owner = -1;  // its InstanceSpan; -1: no instrumented instance was open
  const char* category = "other";
  bool before_window = false;  // held when the window began (MemoryAtStart), not the window's own
};

constexpr const char* kBeforeWindow = "before_window";

int StepAt(const std::vector<StepSpan>& steps, TimeNs time) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].start_ns <= time && time < steps[i].end_ns) return static_cast<int>(i);
  }
  return -1;
}

// Markers paired into spans: an exit closes the latest open enter of its path on its thread. A
// span left open (a backward whose input needed no gradient) ends with its step.
std::vector<InstanceSpan> InstanceSpansOf(const Timeline& timeline) {
  std::vector<MarkerEvent> markers = timeline.markers;
  std::stable_sort(markers.begin(), markers.end(), [](const MarkerEvent& a, const MarkerEvent& b) {
    return a.time_ns < b.time_ns;
  });
  std::vector<InstanceSpan> spans;
  std::map<std::tuple<ThreadId, std::string, bool>, std::vector<std::size_t>> open;
  for (const MarkerEvent& marker : markers) {
    const bool backward =
        marker.kind == MarkerKind::kBackwardBegin || marker.kind == MarkerKind::kBackwardEnd;
    const bool opens =
        marker.kind == MarkerKind::kForwardEnter || marker.kind == MarkerKind::kBackwardBegin;
    std::vector<std::size_t>& stack = open[{marker.thread, marker.path.str(), backward}];
    if (opens) {
      stack.push_back(spans.size());
      spans.push_back({marker.path.str(), backward, marker.thread, marker.time_ns, kNever});
    } else if (!stack.empty()) {
      spans[stack.back()].end_ns = marker.time_ns;
      stack.pop_back();
    }
  }
  for (InstanceSpan& span : spans) {
    if (span.end_ns != kNever) continue;
    const int step = StepAt(timeline.steps, span.start_ns);
    span.end_ns = step >= 0 ? timeline.steps[step].end_ns : span.start_ns;
  }
  return spans;
}

// The innermost span open at a time on a thread: spans nest on a thread, so of those containing
// the time, the one that started last.
class SpanFinder {
 public:
  explicit SpanFinder(const std::vector<InstanceSpan>& spans) {
    for (std::size_t i = 0; i < spans.size(); ++i) by_thread_[spans[i].thread].push_back(i);
    for (auto& entry : by_thread_) {
      std::stable_sort(entry.second.begin(), entry.second.end(), [&](std::size_t a, std::size_t b) {
        return spans[a].start_ns < spans[b].start_ns;
      });
    }
    spans_ = &spans;
  }

  int Innermost(ThreadId thread, TimeNs time) const {
    const auto found = by_thread_.find(thread);
    if (found == by_thread_.end()) return -1;
    const std::vector<std::size_t>& order = found->second;
    auto it = std::upper_bound(order.begin(), order.end(), time,
                               [&](TimeNs t, std::size_t i) { return t < (*spans_)[i].start_ns; });
    while (it != order.begin()) {
      --it;
      if ((*spans_)[*it].end_ns > time) return static_cast<int>(*it);
    }
    return -1;
  }

 private:
  const std::vector<InstanceSpan>* spans_ = nullptr;
  std::unordered_map<ThreadId, std::vector<std::size_t>> by_thread_;
};

// The device whose allocations were largest.
std::int32_t MainDevice(const std::vector<MemoryEvent>& events) {
  std::map<std::int32_t, std::int64_t> allocated;
  for (const MemoryEvent& event : events) {
    if (event.bytes > 0) allocated[event.device] += event.bytes;
  }
  std::int32_t device = -1;
  std::int64_t most = -1;
  for (const auto& [index, bytes] : allocated) {
    if (bytes > most) {
      most = bytes;
      device = index;
    }
  }
  return device;
}

// The first stretch of `phase` in `step` starting at or after `time`, else none.
const PhaseSpan* NextPhase(const StepSpan& step, Phase phase, TimeNs time) {
  for (const PhaseSpan& span : step.phases) {
    if (span.phase == phase && span.start_ns >= time) return &span;
  }
  return nullptr;
}

// The stretch of `step` that holds `time`.
const PhaseSpan* PhaseHolding(const StepSpan& step, TimeNs time) {
  for (const PhaseSpan& span : step.phases) {
    if (span.start_ns <= time && time < span.end_ns) return &span;
  }
  return nullptr;
}

bool LiveAt(const Allocation& a, TimeNs time) { return a.start_ns <= time && time < a.end_ns; }

// What an allocation was, told by whether it outlived the phase that made it.
const char* CategoryOf(const Allocation& a, const std::vector<StepSpan>& steps) {
  if (a.step < 0) return "other";
  const StepSpan& step = steps[a.step];
  switch (a.phase) {
    case Phase::kForward:
    case Phase::kLoss: {
      const PhaseSpan* backward = NextPhase(step, Phase::kBackward, a.start_ns);
      return backward != nullptr && LiveAt(a, backward->start_ns) ? "activations" : "temporaries";
    }
    case Phase::kBackward: {
      const PhaseSpan* span = PhaseHolding(step, a.start_ns);
      return span != nullptr && a.end_ns >= span->end_ns ? "gradients" : "temporaries";
    }
    case Phase::kOptimizer:
      return a.end_ns >= step.end_ns ? "optimizer_state" : "temporaries";
    case Phase::kData:
    case Phase::kOutside:
      return "other";
  }
  return "other";
}

// What the device held as the window began beyond the resident bytes (the door counts those):
// allocations from before the window, each piece live from the first step's start until the
// window frees it (CUDA reports a free of such memory with its size; `earlier_frees` in time
// order), the rest through the window. A free before the first step leaves none of its bytes.
std::vector<Allocation> BeforeWindow(
    const Timeline& timeline, std::int32_t device,
    const std::vector<std::pair<TimeNs, std::int64_t>>& earlier_frees,
    const ResidentMemory& resident) {
  std::vector<Allocation> pieces;
  const std::optional<MemoryAtStart>& at_start = timeline.memory_at_start;
  if (!at_start || at_start->device != device || timeline.steps.empty()) return pieces;
  const auto resident_bytes = static_cast<std::int64_t>(
      (resident.parameter_mb + resident.optimizer_state_mb) * kBytesPerMb);
  std::int64_t left = at_start->bytes - resident_bytes;
  Allocation held;  // no step's, no instance's
  held.start_ns = timeline.steps.front().start_ns;
  held.category = kBeforeWindow;
  held.before_window = true;
  const auto piece = [&](std::int64_t bytes, TimeNs end) {
    pieces.push_back(held);
    pieces.back().bytes = bytes;
    pieces.back().end_ns = end;
  };
  for (const auto& [time, bytes] : earlier_frees) {
    if (left <= 0) break;
    const std::int64_t freed = std::min(bytes, left);
    if (time > held.start_ns) piece(freed, time);
    left -= freed;
  }
  if (left > 0) piece(left, kNever);
  return pieces;
}

std::vector<Allocation> AllocationsOf(const Timeline& timeline,
                                      const std::vector<InstanceSpan>& spans,
                                      const ResidentMemory& resident) {
  std::vector<MemoryEvent> events = timeline.memory;
  const std::int32_t device = MainDevice(events);
  std::stable_sort(events.begin(), events.end(), [](const MemoryEvent& a, const MemoryEvent& b) {
    return a.time_ns < b.time_ns;
  });
  const SpanFinder finder(spans);
  std::vector<Allocation> allocations;
  std::vector<std::pair<TimeNs, std::int64_t>> earlier_frees;
  std::unordered_map<std::uint64_t, std::size_t> live;  // address -> allocation
  for (const MemoryEvent& event : events) {
    if (event.device != device || event.bytes == 0) continue;
    if (event.bytes > 0) {
      Allocation a;
      a.bytes = event.bytes;
      a.start_ns = event.time_ns;
      a.step = StepAt(timeline.steps, event.time_ns);
      if (a.step >= 0) a.phase = timeline.steps[a.step].PhaseAt(event.time_ns);
      a.thread = event.thread;
      a.owner = finder.Innermost(event.thread, event.time_ns);
      live[event.address] = allocations.size();
      allocations.push_back(a);
    } else if (auto it = live.find(event.address); it != live.end()) {
      allocations[it->second].end_ns = event.time_ns;
      live.erase(it);
    } else {
      // A free of memory allocated before the window (CUDA reports those, with their size).
      earlier_frees.emplace_back(event.time_ns, -event.bytes);
    }
  }
  for (Allocation& a : allocations) a.category = CategoryOf(a, timeline.steps);
  const std::vector<Allocation> before = BeforeWindow(timeline, device, earlier_frees, resident);
  allocations.insert(allocations.end(), before.begin(), before.end());
  return allocations;
}

// The allocations made in a step before the window's last and live at its end.
std::vector<KeptAllocation> KeptAmong(const Timeline& timeline,
                                      const std::vector<Allocation>& allocations,
                                      const std::vector<InstanceSpan>& spans) {
  std::vector<KeptAllocation> kept;
  if (timeline.steps.empty()) return kept;
  const int last = static_cast<int>(timeline.steps.size()) - 1;
  const TimeNs end = timeline.steps.back().end_ns;
  for (const Allocation& a : allocations) {
    if (a.step < 0 || a.step >= last || a.end_ns <= end) continue;
    kept.push_back({a.bytes, a.start_ns, a.thread, a.phase,
                    a.owner >= 0 ? spans[a.owner].path : std::string()});
  }
  return kept;
}

// The most the given allocations held live at once.
std::int64_t PeakOf(const std::vector<const Allocation*>& allocations) {
  std::vector<std::pair<TimeNs, std::int64_t>> changes;
  for (const Allocation* a : allocations) {
    changes.emplace_back(a->start_ns, a->bytes);
    if (a->end_ns != kNever) changes.emplace_back(a->end_ns, -a->bytes);
  }
  // A free at the time of an allocation lands first: the two did not overlap.
  std::sort(changes.begin(), changes.end());
  std::int64_t live = 0;
  std::int64_t peak = 0;
  for (const auto& change : changes) {
    live += change.second;
    peak = std::max(peak, live);
  }
  return peak;
}

// The first moment the window's allocations reach their highest sum, within a step.
std::optional<TimeNs> PeakTime(const std::vector<Allocation>& allocations) {
  std::vector<std::pair<TimeNs, std::int64_t>> changes;
  for (const Allocation& a : allocations) {
    changes.emplace_back(a.start_ns, a.bytes);
    if (a.end_ns != kNever) changes.emplace_back(a.end_ns, -a.bytes);
  }
  std::sort(changes.begin(), changes.end());
  std::int64_t live = 0;
  std::int64_t peak = 0;
  std::optional<TimeNs> at;
  for (const auto& [time, bytes] : changes) {
    live += bytes;
    if (bytes > 0 && live > peak) {
      peak = live;
      at = time;
    }
  }
  return at;
}

MemoryPeak PeakAt(TimeNs time, const Timeline& timeline, const std::vector<Allocation>& allocations,
                  const std::vector<InstanceSpan>& spans, const ResidentMemory& resident) {
  LiveSums categories;
  LiveSums modules;
  if (resident.parameter_mb > 0) categories["parameters"] = {resident.parameter_mb, 0};
  if (resident.optimizer_state_mb > 0) {
    categories["optimizer_state"] = {resident.optimizer_state_mb, 0};
  }
  MemoryPeak peak;
  peak.mb = resident.parameter_mb + resident.optimizer_state_mb;
  for (const Allocation& a : allocations) {
    if (!LiveAt(a, time)) continue;
    peak.mb += Mb(a.bytes);
    auto& category = categories[a.category];
    category.first += Mb(a.bytes);
    ++category.second;
    if (a.owner >= 0) {
      auto& module = modules[spans[a.owner].path];
      module.first += Mb(a.bytes);
      ++module.second;
    }
  }
  const int step = StepAt(timeline.steps, time);
  if (step >= 0) {
    const StepSpan& span = timeline.steps[step];
    peak.time_ms = static_cast<double>(time - span.start_ns) * 1e-6;
    const Phase phase = span.PhaseAt(time);
    if (phase != Phase::kOutside) peak.phase = PhaseName(phase);
  }
  NameHolders(categories, modules, peak);
  return peak;
}

// Each instrumented instance's own allocations in `step`: kept for backward, forward and
// backward peaks. Most kept first.
std::vector<ModuleMemory> ModulesIn(int step, const Timeline& timeline,
                                    const std::vector<Allocation>& allocations,
                                    const std::vector<InstanceSpan>& spans) {
  struct Own {
    std::vector<const Allocation*> forward;
    std::vector<const Allocation*> backward;
  };
  std::map<std::string, Own> owned;
  for (const Allocation& a : allocations) {
    if (a.step != step || a.owner < 0) continue;
    const InstanceSpan& span = spans[a.owner];
    (span.backward ? owned[span.path].backward : owned[span.path].forward).push_back(&a);
  }
  const StepSpan& step_span = timeline.steps[step];
  const bool has_backward = step_span.TimeIn(Phase::kBackward) > 0;
  std::vector<ModuleMemory> modules;
  for (const auto& [path, own] : owned) {
    ModuleMemory memory;
    memory.path = path;
    if (!own.forward.empty()) {
      memory.forward_peak_mb = Mb(PeakOf(own.forward));
      if (has_backward) {
        std::int64_t kept = 0;
        for (const Allocation* a : own.forward) {
          if (std::string(a->category) == "activations") kept += a->bytes;
        }
        memory.kept_for_backward_mb = Mb(kept);
      }
    }
    if (!own.backward.empty()) memory.backward_peak_mb = Mb(PeakOf(own.backward));
    modules.push_back(std::move(memory));
  }
  std::stable_sort(modules.begin(), modules.end(),
                   [](const ModuleMemory& a, const ModuleMemory& b) {
                     return a.kept_for_backward_mb.value_or(0) > b.kept_for_backward_mb.value_or(0);
                   });
  return modules;
}

// How deep a span sits among the step's instrumented instances: how many of their paths are its
// ancestors.
int DepthAmong(const std::string& path, const std::vector<std::string>& paths) {
  int depth = 0;
  for (const std::string& other : paths) {
    if (other.empty() || (path.size() > other.size() && path.rfind(other + ".", 0) == 0)) ++depth;
  }
  return depth;
}

std::vector<MemorySpan> StepSpansOf(const StepSpan& step, const std::vector<InstanceSpan>& spans) {
  const auto ms = [&](TimeNs time) { return static_cast<double>(time - step.start_ns) * 1e-6; };
  std::vector<const InstanceSpan*> in_step;
  std::vector<std::string> paths;
  for (const InstanceSpan& span : spans) {
    if (span.start_ns < step.start_ns || span.start_ns >= step.end_ns) continue;
    in_step.push_back(&span);
    if (std::find(paths.begin(), paths.end(), span.path) == paths.end()) paths.push_back(span.path);
  }
  // A span narrower than a pixel shows nothing: the widest are drawn.
  if (in_step.size() > kStepTimelineSpans) {
    std::stable_sort(in_step.begin(), in_step.end(),
                     [](const InstanceSpan* a, const InstanceSpan* b) {
                       return a->end_ns - a->start_ns > b->end_ns - b->start_ns;
                     });
    in_step.resize(kStepTimelineSpans);
  }
  std::vector<MemorySpan> drawn;
  for (const PhaseSpan& phase : step.phases) {
    drawn.push_back({MemorySpan::Kind::kPhase, PhaseName(phase.phase), 0, ms(phase.start_ns),
                     ms(phase.end_ns)});
  }
  for (const InstanceSpan* span : in_step) {
    drawn.push_back({MemorySpan::Kind::kModule, span->path, DepthAmong(span->path, paths),
                     ms(span->start_ns), ms(std::min(span->end_ns, step.end_ns))});
  }
  std::stable_sort(drawn.begin(), drawn.end(), [](const MemorySpan& a, const MemorySpan& b) {
    return a.start_ms < b.start_ms;
  });
  return drawn;
}

// Live bytes by category over `step`, the resident bytes at the bottom: the state at the step's
// start and end and between them the step cut into equal stretches, each drawn at the moment of
// its highest sum (the changes ordered as PeakTime orders them, so the peak is one of them).
StepMemoryTimeline TimelineOf(const StepSpan& step, const std::vector<Allocation>& allocations,
                              const std::vector<InstanceSpan>& spans,
                              const ResidentMemory& resident) {
  StepMemoryTimeline timeline;
  timeline.step_ms = static_cast<double>(step.end_ns - step.start_ns) * 1e-6;
  timeline.spans = StepSpansOf(step, spans);
  std::vector<double> resident_mb;
  for (const auto& [name, mb] :
       {std::pair<const char*, double>{"parameters", resident.parameter_mb},
        {"optimizer_state", resident.optimizer_state_mb}}) {
    if (mb > 0) {
      timeline.categories.push_back(name);
      resident_mb.push_back(mb);
    }
  }
  // The window's categories after the resident ones; optimizer_state shares its layer.
  const auto layer_of = [&](const char* category) {
    const auto found = std::find(timeline.categories.begin(), timeline.categories.end(), category);
    if (found != timeline.categories.end()) {
      return static_cast<std::size_t>(found - timeline.categories.begin());
    }
    timeline.categories.push_back(category);
    return timeline.categories.size() - 1;
  };
  for (const char* category :
       {kBeforeWindow, "activations", "gradients", "optimizer_state", "temporaries", "other"}) {
    for (const Allocation& a : allocations) {
      if (a.category == std::string(category)) {
        layer_of(category);
        break;
      }
    }
  }
  struct Change {
    TimeNs time;
    std::int64_t bytes;
    std::size_t layer;
  };
  std::vector<Change> changes;
  for (const Allocation& a : allocations) {
    if (a.start_ns >= step.end_ns || a.end_ns <= step.start_ns) continue;
    const std::size_t layer = layer_of(a.category);
    changes.push_back({a.start_ns, a.bytes, layer});
    if (a.end_ns != kNever) changes.push_back({a.end_ns, -a.bytes, layer});
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return std::tie(a.time, a.bytes) < std::tie(b.time, b.bytes);
  });
  std::vector<std::int64_t> live(timeline.categories.size(), 0);
  const auto point_at = [&](TimeNs time) {
    StepMemoryPoint point;
    point.time_ms = static_cast<double>(time - step.start_ns) * 1e-6;
    for (std::size_t i = 0; i < live.size(); ++i) {
      point.mb.push_back(Mb(live[i]) + (i < resident_mb.size() ? resident_mb[i] : 0));
    }
    return point;
  };
  const double span = static_cast<double>(std::max<TimeNs>(1, step.end_ns - step.start_ns));
  std::size_t change = 0;
  for (; change < changes.size() && changes[change].time <= step.start_ns; ++change) {
    live[changes[change].layer] += changes[change].bytes;
  }
  timeline.points.push_back(point_at(step.start_ns));
  std::int64_t total = 0;
  for (const std::int64_t bytes : live) total += bytes;
  std::optional<std::size_t> stretch;
  std::int64_t highest = 0;
  for (; change < changes.size() && changes[change].time < step.end_ns; ++change) {
    const Change& c = changes[change];
    live[c.layer] += c.bytes;
    total += c.bytes;
    const auto at =
        std::min(kStepTimelinePoints - 1,
                 static_cast<std::size_t>(static_cast<double>(c.time - step.start_ns) / span *
                                          static_cast<double>(kStepTimelinePoints)));
    if (stretch != at) {
      stretch = at;
      highest = total;
      timeline.points.push_back(point_at(c.time));
    } else if (total > highest) {
      highest = total;
      timeline.points.back() = point_at(c.time);
    }
  }
  timeline.points.push_back(point_at(step.end_ns));
  return timeline;
}

}  // namespace

std::vector<KeptAllocation> KeptAcrossSteps(const Timeline& timeline) {
  const std::vector<InstanceSpan> spans = InstanceSpansOf(timeline);
  return KeptAmong(timeline, AllocationsOf(timeline, spans, ResidentMemory{}), spans);
}

WindowMemory AttributeWindowMemory(const Timeline& timeline, const ResidentMemory& resident) {
  WindowMemory memory;
  if (timeline.memory.empty() || timeline.steps.empty()) return memory;
  const std::vector<InstanceSpan> spans = InstanceSpansOf(timeline);
  const std::vector<Allocation> allocations = AllocationsOf(timeline, spans, resident);
  for (const StepSpan& step : timeline.steps) {
    std::int64_t live = 0;
    for (const Allocation& a : allocations) {
      if (!a.before_window && a.start_ns < step.end_ns && a.end_ns > step.end_ns) live += a.bytes;
    }
    memory.step_end_mb.push_back(Mb(live));
  }
  std::map<std::pair<Phase, std::string>, std::int64_t> kept;
  for (const KeptAllocation& a : KeptAmong(timeline, allocations, spans)) {
    kept[{a.phase, a.owner}] += a.bytes;
  }
  std::int64_t most_kept = 0;
  for (const auto& [where, bytes] : kept) {
    if (bytes <= most_kept) continue;
    most_kept = bytes;
    memory.kept_phase = where.first;
    memory.kept_owner = where.second;
  }
  const std::optional<TimeNs> time = PeakTime(allocations);
  if (!time) return memory;
  memory.peak = PeakAt(*time, timeline, allocations, spans, resident);
  const int step = StepAt(timeline.steps, *time);
  if (step >= 0) {
    memory.modules = ModulesIn(step, timeline, allocations, spans);
    memory.timeline = TimelineOf(timeline.steps[step], allocations, spans, resident);
  }
  return memory;
}

}  // namespace advisor
