#include "engine/analysis/attribution.h"

#include <algorithm>
#include <tuple>

namespace advisor {

Cost& PhaseCosts::operator[](Phase phase) {
  switch (phase) {
    case Phase::kForward: return forward;
    case Phase::kBackward: return backward;
    default: return optimizer;
  }
}

const Cost& PhaseCosts::operator[](Phase phase) const {
  return const_cast<PhaseCosts&>(*this)[phase];
}

PhaseCosts& PhaseCosts::operator+=(const PhaseCosts& other) {
  forward += other.forward;
  backward += other.backward;
  optimizer += other.optimizer;
  return *this;
}

bool IsSameOrDescendant(const std::string& path, const std::string& ancestor) {
  if (ancestor.empty()) return true;
  return path.compare(0, ancestor.size(), ancestor) == 0 &&
         (path.size() == ancestor.size() || path[ancestor.size()] == '.');
}

WindowAttribution::WindowAttribution(const Timeline& timeline,
                                     const std::vector<OpPlacement>& placements,
                                     const std::vector<double>& gpu_ms_by_op)
    : steps_(static_cast<int>(timeline.steps.size())), has_gpu_(!gpu_ms_by_op.empty()) {
  if (steps_ == 0) return;
  // Device time launched anywhere inside a top-level op counts for that op.
  std::vector<double> subtree_gpu_ms(timeline.ops.size(), 0.0);
  if (has_gpu_) {
    for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
      const int top = placements[i].top_level;
      if (top >= 0) subtree_gpu_ms[top] += gpu_ms_by_op[i];
    }
  }

  std::map<std::tuple<std::string, Phase, std::string>, OpCost> by_op;
  const double per_step = 1.0 / steps_;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpPlacement& placement = placements[i];
    if (placement.top_level != static_cast<int>(i) || placement.step < 0) continue;
    const OpEvent& op = timeline.ops[i];
    Cost cost;
    cost.host_ms = (op.end_ns - op.start_ns) * 1e-6 * per_step;
    cost.gpu_ms = subtree_gpu_ms[i] * per_step;
    self_[placement.module][placement.phase] += cost;
    OpCost& entry = by_op[{placement.module, placement.phase, op.name}];
    entry.name = op.name;
    entry.module = placement.module;
    entry.phase = placement.phase;
    entry.calls += per_step;
    entry.cost += cost;
  }
  for (auto& [key, entry] : by_op) ops_.push_back(std::move(entry));
}

std::vector<std::string> WindowAttribution::Modules() const {
  std::vector<std::string> modules;
  for (const auto& [path, costs] : self_) {
    if (!path.empty()) modules.push_back(path);
  }
  return modules;
}

PhaseCosts WindowAttribution::Self(const std::string& path) const {
  auto it = self_.find(path);
  return it == self_.end() ? PhaseCosts{} : it->second;
}

PhaseCosts WindowAttribution::Inclusive(const std::string& path) const {
  PhaseCosts total;
  for (const auto& [module, costs] : self_) {
    if (!module.empty() && IsSameOrDescendant(module, path)) total += costs;
  }
  return total;
}

PhaseCosts WindowAttribution::Step() const {
  PhaseCosts total;
  for (const auto& [module, costs] : self_) total += costs;
  return total;
}

std::vector<OpCost> WindowAttribution::TopOps(const std::string& path) const {
  // Merge the same op name and phase across the module's descendants.
  std::map<std::pair<Phase, std::string>, OpCost> merged;
  for (const OpCost& op : ops_) {
    if (!path.empty() && (op.module.empty() || !IsSameOrDescendant(op.module, path))) continue;
    OpCost& entry = merged[{op.phase, op.name}];
    if (entry.name.empty()) {
      entry = op;
      entry.module = path;
    } else {
      entry.calls += op.calls;
      entry.cost += op.cost;
    }
  }
  std::vector<OpCost> out;
  for (auto& [key, op] : merged) out.push_back(std::move(op));
  std::sort(out.begin(), out.end(), [this](const OpCost& a, const OpCost& b) {
    return Rank(a.cost) > Rank(b.cost);
  });
  return out;
}

}  // namespace advisor
