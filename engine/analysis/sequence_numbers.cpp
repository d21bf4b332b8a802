#include "engine/analysis/sequence_numbers.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace advisor {

std::vector<int> CreatingForwardOps(const Timeline& timeline) {
  const std::vector<OpEvent>& ops = timeline.ops;
  std::vector<std::size_t> order(ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ops[a].start_ns < ops[b].start_ns;
  });
  std::vector<int> creator(ops.size(), -1);
  // (thread, sequence number) -> the latest forward op so far, replayed in start order.
  std::map<std::pair<ThreadId, std::int64_t>, int> latest_forward;
  for (std::size_t i : order) {
    const OpEvent& op = ops[i];
    const OpSequence& sequence = timeline.SequenceOf(i);
    if (sequence.seq_nr < 0) continue;
    if (op.scope == OpScope::kForward) {
      latest_forward[{op.thread, sequence.seq_nr}] = static_cast<int>(i);
    } else if (op.scope == OpScope::kBackward) {
      auto it = latest_forward.find({sequence.forward_thread, sequence.seq_nr});
      if (it != latest_forward.end()) creator[i] = it->second;
    }
  }
  return creator;
}

std::string ForwardOpOf(const Timeline& timeline, const OpPlacements& placements,
                        std::size_t backward) {
  const int creator = CreatingForwardOps(timeline)[backward];
  if (creator < 0) return "";
  const int outermost = placements[creator].top_level;
  return timeline.ops[outermost >= 0 ? outermost : creator].name.str();
}

std::string CostliestForwardOpOf(const Timeline& timeline,
                                 const OpPlacements& placements,
                                 const std::string& node, const ModulePath& path) {
  std::vector<int> creator;  // made once, where the window holds such a node
  std::map<std::string, TimeNs> time_of;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpEvent& op = timeline.ops[i];
    if (op.name != node || op.scope != OpScope::kBackward || timeline.SequenceOf(i).seq_nr < 0 ||
        !IsSameOrDescendant(placements.ModuleOf(i), path)) {
      continue;
    }
    if (creator.empty()) creator = CreatingForwardOps(timeline);
    if (creator[i] < 0) continue;
    const int outermost = placements[creator[i]].top_level;
    time_of[timeline.ops[outermost >= 0 ? outermost : creator[i]].name.str()] +=
        op.end_ns - op.start_ns;
  }
  std::string costliest;
  TimeNs most = -1;
  for (const auto& [name, time] : time_of) {
    if (time > most) {
      most = time;
      costliest = name;
    }
  }
  return costliest;
}

CrossCheck CheckAgainstSequenceNumbers(const Timeline& timeline,
                                       const OpPlacements& placements) {
  const std::vector<int> creator = CreatingForwardOps(timeline);
  CrossCheck check;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpEvent& op = timeline.ops[i];
    if (op.scope != OpScope::kBackward || timeline.SequenceOf(i).seq_nr < 0 ||
        placements[i].top_level != static_cast<int>(i)) {
      continue;
    }
    if (creator[i] < 0) {
      ++check.backward_ops_without_forward;  // e.g. inside a DifferentiableGraphBackward
      continue;
    }
    ++check.backward_ops_checked;
    if (placements[creator[i]].module == placements[i].module) ++check.backward_ops_agreeing;
  }
  return check;
}

std::vector<MarkerEvent> BackwardMarkersFromSequenceNumbers(
    const Timeline& timeline, const OpPlacements& placements) {
  const std::vector<OpEvent>& ops = timeline.ops;
  const std::vector<int> creator = CreatingForwardOps(timeline);
  std::vector<std::size_t> nodes;  // top-level backward nodes, in start order
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].scope == OpScope::kBackward && creator[i] >= 0 &&
        placements[i].top_level == static_cast<int>(i)) {
      nodes.push_back(i);
    }
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](std::size_t a, std::size_t b) {
    return ops[a].start_ns < ops[b].start_ns;
  });
  std::vector<MarkerEvent> markers;
  for (std::size_t node : nodes) {
    const ModulePath& path = placements.ModuleOf(creator[node]);
    if (path.empty()) continue;
    markers.push_back({path, MarkerKind::kBackwardBegin, ops[node].thread, ops[node].start_ns});
    markers.push_back({path, MarkerKind::kBackwardEnd, ops[node].thread, ops[node].end_ns});
  }
  return markers;
}

}  // namespace advisor
