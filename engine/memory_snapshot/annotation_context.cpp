#include "engine/memory_snapshot/annotation_context.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "engine/memory_snapshot/snapshot_reader.h"

namespace advisor {
namespace {

// The bounds engine/trace_analysis/module_markers.h keeps for a trace's module ranges: real models
// nest a few dozen deep, and every open range costs each event a look.
constexpr std::size_t kMaxOpenRanges = 128;
constexpr std::uint64_t kMaxPathBytes = std::uint64_t{256} << 20;  // every module path together

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// "encoder", "blocks.3.attn", "_orig_mod.layer1": words of letters, digits and underscores
// joined by dots, not starting with a digit.
bool IsDottedPath(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) return false;
  bool after_dot = true;
  for (char c : name) {
    if (c == '.') {
      if (after_dot) return false;
      after_dot = true;
    } else if (IsWordChar(c) || c == '_') {
      after_dot = false;
    } else {
      return false;
    }
  }
  return !after_dot;
}

// A module range inside `parent` (a path, or "" at the top).
std::string ChildPath(const std::string& parent, const std::string& name) {
  if (parent.empty()) return name;
  if (name.size() > parent.size() && name.compare(0, parent.size(), parent) == 0 &&
      name[parent.size()] == '.') {
    return name;
  }
  return parent + "." + name;
}

struct OpenRange {
  const std::string* name = nullptr;
  RangeKind kind = RangeKind::kOther;
  MemoryPhase phase = MemoryPhase::kNone;
  std::uint32_t path = 0;
  int depth = 0;
  std::int64_t start_us = 0;
};

}  // namespace

const char* MemoryPhaseName(MemoryPhase phase) {
  switch (phase) {
    case MemoryPhase::kForward:
      return "forward";
    case MemoryPhase::kBackward:
      return "backward";
    case MemoryPhase::kOptimizer:
      return "optimizer";
    case MemoryPhase::kNone:
      break;
  }
  return "";
}

RangeKind KindOfRange(const std::string& name, MemoryPhase* phase) {
  bool optimizer = false, backward = false, forward = false;
  std::string word;
  const auto end_word = [&] {
    optimizer = optimizer || word == "optimizer";
    backward = backward || word == "backward";
    forward = forward || word == "forward";
    word.clear();
  };
  for (char c : name) {
    if (IsWordChar(c)) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      end_word();
    }
  }
  end_word();
  *phase = optimizer  ? MemoryPhase::kOptimizer
           : backward ? MemoryPhase::kBackward
           : forward  ? MemoryPhase::kForward
                      : MemoryPhase::kNone;
  if (*phase != MemoryPhase::kNone) return RangeKind::kPhase;
  return IsDottedPath(name) ? RangeKind::kModule : RangeKind::kOther;
}

EventContext ContextOfEvents(const MemorySnapshot& snapshot, std::size_t device) {
  EventContext context;
  context.paths.emplace_back();
  const std::vector<TraceEntry>& entries = snapshot.device_traces[device];
  context.phase.assign(entries.size(), MemoryPhase::kNone);
  context.path.assign(entries.size(), 0);
  if (!snapshot.timed) return context;

  std::vector<const SnapshotAnnotation*> ranges;
  for (const SnapshotAnnotation& annotation : snapshot.annotations) {
    if (annotation.device == -1 || annotation.device == static_cast<std::int64_t>(device)) {
      ranges.push_back(&annotation);
    }
  }
  if (ranges.empty()) return context;
  context.annotated = true;
  // By time; at one microsecond starts first, so that ranges hold the events of their edges.
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const SnapshotAnnotation* a, const SnapshotAnnotation* b) {
                     if (a->time_us != b->time_us) return a->time_us < b->time_us;
                     return a->start && !b->start;
                   });

  std::unordered_map<std::string, std::uint32_t> path_ids;
  std::uint64_t path_bytes = 0;
  std::vector<OpenRange> open;
  const auto close = [&](std::vector<OpenRange>::iterator range, std::int64_t end_us) {
    EventContext::Span span;
    span.kind =
        range->kind == RangeKind::kPhase ? MemorySpan::Kind::kPhase : MemorySpan::Kind::kModule;
    span.path = range->path;
    span.phase = range->phase;
    span.depth = range->depth;
    span.start_us = range->start_us;
    span.end_us = end_us;
    context.spans.push_back(span);
    open.erase(range);
  };
  const auto apply = [&](const SnapshotAnnotation& annotation) {
    if (!annotation.start) {
      const auto range = std::find_if(open.rbegin(), open.rend(), [&](const OpenRange& r) {
        return *r.name == annotation.name;
      });
      if (range != open.rend()) close(std::next(range).base(), annotation.time_us);
      return;
    }
    OpenRange range;
    range.name = &annotation.name;
    range.kind = KindOfRange(annotation.name, &range.phase);
    range.start_us = annotation.time_us;
    if (range.kind == RangeKind::kOther) return;
    if (open.size() >= kMaxOpenRanges) {
      throw SnapshotError(snapshot.path + ": more than " + std::to_string(kMaxOpenRanges) +
                          " record_function ranges open at once (at time_us " +
                          std::to_string(annotation.time_us) + ")");
    }
    if (range.kind == RangeKind::kModule) {
      const auto parent = std::find_if(open.rbegin(), open.rend(), [](const OpenRange& r) {
        return r.kind == RangeKind::kModule;
      });
      const std::string path =
          ChildPath(parent == open.rend() ? "" : context.paths[parent->path], annotation.name);
      const auto [id, added] =
          path_ids.emplace(path, static_cast<std::uint32_t>(context.paths.size()));
      if (added) {
        path_bytes += path.size();
        if (path_bytes > kMaxPathBytes) {
          throw SnapshotError(snapshot.path +
                              ": the record_function ranges' module paths take "
                              "more than 256 MiB");
        }
        context.paths.push_back(path);
      }
      range.path = id->second;
      range.depth = parent == open.rend() ? 0 : parent->depth + 1;
    }
    open.push_back(range);
  };

  std::size_t next = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::int64_t time = entries[i].time_us;
    while (next < ranges.size() && (ranges[next]->time_us < time ||
                                    (ranges[next]->time_us == time && ranges[next]->start))) {
      apply(*ranges[next++]);
    }
    bool phase_found = false, module_found = false;
    for (auto range = open.rbegin(); range != open.rend() && !(phase_found && module_found);
         ++range) {
      if (range->kind == RangeKind::kPhase && !phase_found) {
        context.phase[i] = range->phase;
        phase_found = true;
      } else if (range->kind == RangeKind::kModule && !module_found) {
        context.path[i] = range->path;
        module_found = true;
      }
    }
  }
  while (next < ranges.size()) apply(*ranges[next++]);
  // Ranges still open when the snapshot was taken end with it.
  std::int64_t last_us = entries.empty() ? 0 : entries.back().time_us;
  last_us = std::max(last_us, ranges.back()->time_us);
  while (!open.empty()) close(open.end() - 1, last_us);
  return context;
}

}  // namespace advisor
