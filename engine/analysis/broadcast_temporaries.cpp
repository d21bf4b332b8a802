#include "engine/analysis/broadcast_temporaries.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "engine/analysis/sequence_numbers.h"
#include "engine/util/median.h"

namespace advisor {
namespace {

double Ms(const OpEvent& op) { return static_cast<double>(op.end_ns - op.start_ns) * 1e-6; }

bool TopLevel(const OpPlacements& placements, std::size_t i) {
  return placements[i].top_level == static_cast<int>(i);
}

// The top-level ops of each thread in start order (Timeline::ops holds each thread's in order).
std::map<ThreadId, std::vector<std::size_t>> TopLevelByThread(const Timeline& timeline,
                                                              const OpPlacements& placements) {
  std::map<ThreadId, std::vector<std::size_t>> by_thread;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    if (TopLevel(placements, i)) by_thread[timeline.ops[i].thread].push_back(i);
  }
  return by_thread;
}

bool IsBroadcast(const OpEvent& op, const OpCounts& counts, const OpPlacement& placement) {
  return op.scope == OpScope::kForward && placement.phase == Phase::kForward &&
         counts.input_elements > 0 &&
         static_cast<double>(counts.broadcast_elements) >=
             kMinBroadcastExpansion * static_cast<double>(counts.input_elements);
}

using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;

}  // namespace

std::vector<BroadcastTemporary> FindBroadcastTemporaries(const Timeline& timeline,
                                                         const OpPlacements& placements,
                                                         double step_ms) {
  const std::vector<int> creators = CreatingForwardOps(timeline);
  const auto by_thread = TopLevelByThread(timeline, placements);
  // Each forward op of a temporary (it and its readers): the temporary it belongs to.
  std::map<std::size_t, Key> forward_of;
  std::map<Key, BroadcastTemporary> found;
  for (const auto& [thread, ops] : by_thread) {
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const OpEvent& op = timeline.ops[ops[k]];
      const OpCounts& counts = timeline.CountsOf(ops[k]);
      const OpPlacement& placement = placements[ops[k]];
      if (!IsBroadcast(op, counts, placement)) continue;
      const Key key{placements.ModuleOf(ops[k]).str(), op.name.str(), counts.broadcast_elements,
                    counts.input_elements};
      BroadcastTemporary& temporary = found[key];
      const bool first = temporary.op.empty();
      temporary.path = placements.ModuleOf(ops[k]).str();
      temporary.op = op.name.str();
      temporary.elements = counts.broadcast_elements;
      temporary.input_elements = counts.input_elements;
      forward_of[ops[k]] = key;
      // Its readers: the next top-level ops of the module that take a tensor of its size.
      std::vector<std::string> reads;
      for (std::size_t next = k + 1; next < ops.size(); ++next) {
        if (placements[ops[next]].module != placement.module ||
            timeline.CountsOf(ops[next]).input_elements != counts.broadcast_elements) {
          break;
        }
        reads.push_back(timeline.ops[ops[next]].name.str());
        forward_of[ops[next]] = key;
      }
      if (first) temporary.reads = std::move(reads);
    }
  }
  if (found.empty()) return {};

  // Per step, the forward ops, their backward nodes, and the gradient sums the engine runs right
  // after a node (a broadcast operand's gradient reduced to its shape, outside every node).
  const std::size_t steps = timeline.steps.size();
  std::map<Key, std::vector<double>> per_step;
  for (const auto& [key, temporary] : found) per_step[key].assign(steps, 0.0);
  const auto add = [&](const Key& key, std::size_t i) {
    const int step = placements[i].step;
    if (step >= 0 && static_cast<std::size_t>(step) < steps) {
      per_step[key][static_cast<std::size_t>(step)] += Ms(timeline.ops[i]);
    }
  };
  for (const auto& [thread, ops] : by_thread) {
    const Key* node_of = nullptr;  // the temporary of the node just before, on this thread
    for (const std::size_t i : ops) {
      const OpEvent& op = timeline.ops[i];
      const auto forward = forward_of.find(i);
      const int creator = creators[i];
      const auto made_by =
          creator >= 0 ? forward_of.find(static_cast<std::size_t>(creator)) : forward_of.end();
      if (forward != forward_of.end()) {
        add(forward->second, i);
        node_of = nullptr;
      } else if (made_by != forward_of.end()) {
        add(made_by->second, i);
        node_of = &made_by->second;
      } else if (node_of != nullptr && op.scope != OpScope::kBackward &&
                 timeline.SequenceOf(i).seq_nr < 0 && placements[i].phase == Phase::kBackward) {
        add(*node_of, i);
      } else {
        node_of = nullptr;
      }
    }
  }
  std::vector<BroadcastTemporary> temporaries;
  for (auto& [key, temporary] : found) {
    temporary.ms = steps > 0 ? Median(per_step[key]) : 0;
    temporary.share = step_ms > 0 ? temporary.ms / step_ms : 0;
    temporaries.push_back(std::move(temporary));
  }
  std::sort(temporaries.begin(), temporaries.end(),
            [](const BroadcastTemporary& a, const BroadcastTemporary& b) { return a.ms > b.ms; });
  return temporaries;
}

}  // namespace advisor
