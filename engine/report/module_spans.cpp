#include "engine/report/module_spans.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "engine/analysis/attribution.h"

namespace advisor {
namespace {

bool Opens(MarkerKind kind) {
  return kind == MarkerKind::kForwardEnter || kind == MarkerKind::kBackwardBegin;
}

bool IsBackward(MarkerKind kind) {
  return kind == MarkerKind::kBackwardBegin || kind == MarkerKind::kBackwardEnd;
}

struct OpenSpan {
  std::size_t index;  // into the result
  bool will_close;    // a closing marker for it comes later on this thread
};

// The latest time anything happened on each thread: where a span nothing closed must end.
std::map<ThreadId, TimeNs> ThreadEnds(const Timeline& timeline) {
  std::map<ThreadId, TimeNs> ends;
  const auto extend = [&ends](ThreadId thread, TimeNs time) {
    auto [it, inserted] = ends.emplace(thread, time);
    if (!inserted) it->second = std::max(it->second, time);
  };
  for (const MarkerEvent& marker : timeline.markers) extend(marker.thread, marker.time_ns);
  for (const OpEvent& op : timeline.ops) extend(op.thread, op.end_ns);
  return ends;
}

// The end of the phase stretch of a step that `time` falls in, or `otherwise` where it falls in
// none: the analysis ends every module interval with its stretch.
TimeNs StretchEnd(const std::vector<StepSpan>& steps, TimeNs time, TimeNs otherwise) {
  for (const StepSpan& step : steps) {
    for (const PhaseSpan& stretch : step.phases) {
      if (stretch.start_ns <= time && time < stretch.end_ns) return stretch.end_ns;
    }
  }
  return otherwise;
}

}  // namespace

std::vector<ModuleSpan> RebuildModuleSpans(const Timeline& timeline) {
  std::map<ThreadId, std::vector<const MarkerEvent*>> by_thread;
  for (const MarkerEvent& marker : timeline.markers) by_thread[marker.thread].push_back(&marker);
  const std::map<ThreadId, TimeNs> thread_ends = ThreadEnds(timeline);

  std::vector<ModuleSpan> spans;
  for (auto& [thread, markers] : by_thread) {
    std::stable_sort(
        markers.begin(), markers.end(),
        [](const MarkerEvent* a, const MarkerEvent* b) { return a->time_ns < b->time_ns; });
    // When each (path, direction) last closes on this thread.
    std::map<std::pair<ModulePath, bool>, TimeNs> last_close;
    for (const MarkerEvent* marker : markers) {
      if (!Opens(marker->kind))
        last_close[{marker->path, IsBackward(marker->kind)}] = marker->time_ns;
    }

    std::vector<OpenSpan> open;  // innermost last
    const auto close_top = [&](TimeNs at, bool inferred) {
      ModuleSpan& span = spans[open.back().index];
      span.end_ns = at;
      span.end_inferred = inferred;
      open.pop_back();
    };
    for (const MarkerEvent* marker : markers) {
      const bool backward = IsBackward(marker->kind);
      if (Opens(marker->kind)) {
        while (!open.empty() && !open.back().will_close &&
               !IsSameOrDescendant(marker->path, spans[open.back().index].path)) {
          close_top(marker->time_ns, true);
        }
        auto closes = last_close.find({marker->path, backward});
        const bool will_close = closes != last_close.end() && closes->second >= marker->time_ns;
        open.push_back({spans.size(), will_close});
        spans.push_back({marker->path, thread, backward, marker->time_ns, marker->time_ns, false});
        continue;
      }
      auto match = std::find_if(open.rbegin(), open.rend(), [&](const OpenSpan& candidate) {
        const ModuleSpan& span = spans[candidate.index];
        return span.path == marker->path && span.backward == backward;
      });
      if (match == open.rend()) continue;
      const std::size_t depth = open.size() - 1 - (match - open.rbegin());
      while (open.size() > depth + 1) close_top(marker->time_ns, true);  // never closed inside it
      close_top(marker->time_ns, false);
    }
    while (!open.empty()) close_top(thread_ends.at(thread), true);
  }
  return spans;
}

void EndInferredBackwardSpansWithTheirOps(const Timeline& timeline, const OpPlacements& placements,
                                          std::vector<ModuleSpan>& spans) {
  std::map<ThreadId, std::vector<std::size_t>> ops_by_thread;  // in start order
  for (const ModuleSpan& span : spans) {
    if (span.backward && span.end_inferred) ops_by_thread.emplace(span.thread, 0);
  }
  if (ops_by_thread.empty()) return;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    auto it = ops_by_thread.find(timeline.ops[i].thread);
    if (it != ops_by_thread.end()) it->second.push_back(i);
  }
  for (auto& [thread, ops] : ops_by_thread) {
    std::stable_sort(ops.begin(), ops.end(), [&](std::size_t a, std::size_t b) {
      return timeline.ops[a].start_ns < timeline.ops[b].start_ns;
    });
  }
  for (ModuleSpan& span : spans) {
    if (!span.backward || !span.end_inferred) continue;
    const std::vector<std::size_t>& ops = ops_by_thread.at(span.thread);
    auto it = std::lower_bound(ops.begin(), ops.end(), span.start_ns, [&](std::size_t i, TimeNs t) {
      return timeline.ops[i].start_ns < t;
    });
    const TimeNs until =
        std::min(span.end_ns, StretchEnd(timeline.steps, span.start_ns, span.end_ns));
    TimeNs last_end = span.start_ns;
    for (; it != ops.end() && timeline.ops[*it].start_ns < until; ++it) {
      if (IsSameOrDescendant(placements.ModuleOf(*it), span.path)) {
        last_end = std::max(last_end, timeline.ops[*it].end_ns);
      }
    }
    span.end_ns = std::min(span.end_ns, last_end);
  }
}

}  // namespace advisor
