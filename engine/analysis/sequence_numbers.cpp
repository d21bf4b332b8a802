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

CrossCheck CheckAgainstSequenceNumbers(const Timeline& timeline,
                                       const std::vector<OpPlacement>& placements) {
  const std::vector<OpEvent>& ops = timeline.ops;
  std::vector<std::size_t> order(ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ops[a].start_ns < ops[b].start_ns;
  });
  CrossCheck check;
  // (thread, sequence number) -> module of the latest forward op, replayed in start order.
  std::map<std::pair<ThreadId, std::int64_t>, std::string> forward_module;
  for (std::size_t i : order) {
    const OpEvent& op = ops[i];
    if (op.seq_nr < 0) continue;
    if (op.scope == OpScope::kForward) {
      forward_module[{op.thread, op.seq_nr}] = placements[i].module;
      continue;
    }
    if (op.scope != OpScope::kBackward || placements[i].top_level != static_cast<int>(i)) continue;
    auto it = forward_module.find({op.forward_thread, op.seq_nr});
    if (it == forward_module.end()) {
      ++check.backward_ops_without_forward;  // e.g. inside a DifferentiableGraphBackward
      continue;
    }
    ++check.backward_ops_checked;
    if (it->second == placements[i].module) ++check.backward_ops_agreeing;
  }
  return check;
}

}  // namespace advisor
