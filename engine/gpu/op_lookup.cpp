#include "engine/gpu/op_lookup.h"

#include <algorithm>
#include <functional>
#include <map>

namespace advisor {
namespace {

bool IsModelCall(const OpEvent& op) {
  return op.scope == OpScope::kForward || op.scope == OpScope::kBackward;
}

}  // namespace

LaunchingOps::LaunchingOps(const Timeline& timeline) {
  const std::vector<std::uint64_t>& ids = timeline.op_correlation_ids;
  if (std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<std::uint64_t>()) ==
      ids.end()) {
    ascending_ids_ = &ids;  // no id is carried twice
    return;
  }
  const std::vector<OpEvent>& ops = timeline.ops;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const std::uint64_t id = timeline.CorrelationOf(i);
    if (id == 0) continue;
    auto [it, inserted] = innermost_by_id_.emplace(id, i);
    if (!inserted && ops[i].depth > ops[it->second].depth) it->second = i;
  }
}

int LaunchingOps::Of(std::uint64_t external_id) const {
  if (external_id == 0) return -1;
  if (ascending_ids_ != nullptr) {
    const std::vector<std::uint64_t>& ids = *ascending_ids_;
    // A trace's ids count from the first op's: the id's op is found at once.
    if (!ids.empty() && external_id >= ids.front()) {
      const std::uint64_t guess = external_id - ids.front();
      if (guess < ids.size() && ids[guess] == external_id) return static_cast<int>(guess);
    }
    const auto it = std::lower_bound(ids.begin(), ids.end(), external_id);
    return it != ids.end() && *it == external_id ? static_cast<int>(it - ids.begin()) : -1;
  }
  auto it = innermost_by_id_.find(external_id);
  return it == innermost_by_id_.end() ? -1 : it->second;
}

OpLookup::OpLookup(const Timeline& timeline)
    : launching_(timeline), calling_op_(timeline.ops.size(), -1) {
  const std::vector<OpEvent>& ops = timeline.ops;

  // Per thread, ops in start order (enclosing before enclosed) against a stack of open ops.
  std::map<ThreadId, std::vector<int>> by_thread;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) by_thread[ops[i].thread].push_back(i);
  for (auto& [thread, indices] : by_thread) {
    const auto enclosing_first = [&ops](int a, int b) {
      if (ops[a].start_ns != ops[b].start_ns) return ops[a].start_ns < ops[b].start_ns;
      if (ops[a].end_ns != ops[b].end_ns) return ops[a].end_ns > ops[b].end_ns;
      return ops[a].depth < ops[b].depth;
    };
    // A trace's ops mostly come in this order already: checking is a pass, sorting many.
    if (!std::is_sorted(indices.begin(), indices.end(), enclosing_first)) {
      std::sort(indices.begin(), indices.end(), enclosing_first);
    }
    std::vector<int> open;  // enclosing ops, outermost first
    for (int index : indices) {
      while (!open.empty() && ops[open.back()].end_ns <= ops[index].start_ns) open.pop_back();
      const int outer_call = open.empty() ? -1 : calling_op_[open.back()];
      const bool outer_is_call = outer_call >= 0 && IsModelCall(ops[outer_call]);
      calling_op_[index] = outer_is_call ? outer_call : index;
      open.push_back(index);
    }
  }
}

std::optional<WorkOrigin> OriginOf(std::uint64_t external_id, const OpLookup& lookup,
                                   const Timeline& timeline, const OpPlacements& placements) {
  const int op = lookup.LaunchingOp(external_id);
  if (op < 0) return std::nullopt;
  const OpPlacement& placement = placements[op];
  return WorkOrigin{placement.step, placement.phase, placements.ModuleOf(op),
                    timeline.ops[lookup.CallingOp(op)].name.str()};
}

}  // namespace advisor
