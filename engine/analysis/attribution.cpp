#include "engine/analysis/attribution.h"

#include <algorithm>
#include <functional>
#include <tuple>

namespace advisor {

Cost& PhaseCosts::operator[](Phase phase) {
  switch (phase) {
    case Phase::kData: return data;
    case Phase::kForward: return forward;
    case Phase::kBackward: return backward;
    default: return optimizer;
  }
}

const Cost& PhaseCosts::operator[](Phase phase) const {
  return const_cast<PhaseCosts&>(*this)[phase];
}

PhaseCosts& PhaseCosts::operator+=(const PhaseCosts& other) {
  data += other.data;
  forward += other.forward;
  backward += other.backward;
  optimizer += other.optimizer;
  return *this;
}

namespace {

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n == 0) return 0;
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Each of the eight numbers is the median of its own per-step values.
PhaseCosts MedianOverSteps(const std::vector<PhaseCosts>& steps) {
  PhaseCosts median;
  for (Phase phase : {Phase::kData, Phase::kForward, Phase::kBackward, Phase::kOptimizer}) {
    std::vector<double> host, gpu;
    for (const PhaseCosts& step : steps) {
      host.push_back(step[phase].host_ms);
      gpu.push_back(step[phase].gpu_ms);
    }
    median[phase] = Cost{MedianOf(host), MedianOf(gpu)};
  }
  return median;
}

}  // namespace

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
    const Cost cost{(op.end_ns - op.start_ns) * 1e-6, subtree_gpu_ms[i]};
    std::vector<PhaseCosts>& steps = self_by_step_[placement.module];
    steps.resize(steps_);
    steps[placement.step][placement.phase] += cost;
    OpCost& entry = by_op[{placement.module, placement.phase, op.name}];
    entry.name = op.name;
    entry.module = placement.module;
    entry.phase = placement.phase;
    entry.calls += per_step;
    entry.cost += Cost{cost.host_ms * per_step, cost.gpu_ms * per_step};
  }
  for (auto& [key, entry] : by_op) ops_.push_back(std::move(entry));
}

std::vector<std::string> WindowAttribution::Modules() const {
  std::vector<std::string> modules;
  for (const auto& [path, steps] : self_by_step_) {
    if (!path.empty()) modules.push_back(path);
  }
  return modules;
}

PhaseCosts WindowAttribution::SumPerStep(
    const std::function<bool(const std::string&)>& include) const {
  std::vector<PhaseCosts> totals(steps_);
  for (const auto& [module, steps] : self_by_step_) {
    if (!include(module)) continue;
    for (int i = 0; i < steps_; ++i) totals[i] += steps[i];
  }
  return MedianOverSteps(totals);
}

PhaseCosts WindowAttribution::Self(const std::string& path) const {
  return SumPerStep([&](const std::string& module) { return module == path; });
}

PhaseCosts WindowAttribution::Inclusive(const std::string& path) const {
  return SumPerStep([&](const std::string& module) {
    return !module.empty() && IsSameOrDescendant(module, path);
  });
}

PhaseCosts WindowAttribution::Step() const {
  return SumPerStep([](const std::string&) { return true; });
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
