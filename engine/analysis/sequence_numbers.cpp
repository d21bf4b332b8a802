#include "engine/analysis/sequence_numbers.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace advisor {

std::string ForwardOpOf(const Timeline& timeline, const std::vector<OpPlacement>& placements,
                        std::size_t backward) {
  const std::vector<OpEvent>& ops = timeline.ops;
  const OpEvent& node = ops[backward];
  int best = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpEvent& op = ops[i];
    if (op.scope != OpScope::kForward || op.seq_nr != node.seq_nr ||
        op.thread != node.forward_thread || op.start_ns > node.start_ns) {
      continue;
    }
    if (best < 0 || op.start_ns > ops[best].start_ns) best = static_cast<int>(i);
  }
  if (best < 0) return "";
  const int outermost = placements[best].top_level;
  return ops[outermost >= 0 ? outermost : best].name;
}

namespace {

// Calls visit(node, forward) for every top-level backward node, in start order, with the index
// of its forward op (same forward thread and sequence number, the latest started before it), or
// -1 when the timeline holds none.
template <typename Visit>
void ForEachTopLevelNode(const Timeline& timeline, const std::vector<OpPlacement>& placements,
                         Visit&& visit) {
  const std::vector<OpEvent>& ops = timeline.ops;
  std::vector<std::size_t> order(ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ops[a].start_ns < ops[b].start_ns;
  });
  // (thread, sequence number) -> the latest forward op, replayed in start order.
  std::map<std::pair<ThreadId, std::int64_t>, std::size_t> latest_forward;
  for (std::size_t i : order) {
    const OpEvent& op = ops[i];
    if (op.seq_nr < 0) continue;
    if (op.scope == OpScope::kForward) {
      latest_forward[{op.thread, op.seq_nr}] = i;
      continue;
    }
    if (op.scope != OpScope::kBackward || placements[i].top_level != static_cast<int>(i)) continue;
    auto it = latest_forward.find({op.forward_thread, op.seq_nr});
    visit(i, it == latest_forward.end() ? -1 : static_cast<int>(it->second));
  }
}

}  // namespace

CrossCheck CheckAgainstSequenceNumbers(const Timeline& timeline,
                                       const std::vector<OpPlacement>& placements) {
  CrossCheck check;
  ForEachTopLevelNode(timeline, placements, [&](std::size_t node, int forward) {
    if (forward < 0) {
      ++check.backward_ops_without_forward;  // e.g. inside a DifferentiableGraphBackward
      return;
    }
    ++check.backward_ops_checked;
    if (placements[forward].module == placements[node].module) ++check.backward_ops_agreeing;
  });
  return check;
}

std::vector<MarkerEvent> BackwardMarkersFromSequenceNumbers(
    const Timeline& timeline, const std::vector<OpPlacement>& placements) {
  std::vector<MarkerEvent> markers;
  ForEachTopLevelNode(timeline, placements, [&](std::size_t node, int forward) {
    if (forward < 0 || placements[forward].module.empty()) return;
    const OpEvent& op = timeline.ops[node];
    const std::string& path = placements[forward].module;
    markers.push_back({path, MarkerKind::kBackwardBegin, op.thread, op.start_ns});
    markers.push_back({path, MarkerKind::kBackwardEnd, op.thread, op.end_ns});
  });
  return markers;
}

}  // namespace advisor
