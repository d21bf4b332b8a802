#include "engine/analysis/attribution.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <tuple>
#include <unordered_map>

#include "engine/util/median.h"

namespace advisor {

Cost& PhaseCosts::operator[](Phase phase) {
  switch (phase) {
    case Phase::kData: return data;
    case Phase::kForward: return forward;
    case Phase::kBackward: return backward;
    case Phase::kLoss: return loss;
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
  loss += other.loss;
  return *this;
}

namespace {

// Each number is the median of its own values in the steps of `range`.
PhaseCosts MedianOverSteps(const std::vector<PhaseCosts>& steps, StepRange range) {
  PhaseCosts median;
  for (Phase phase :
       {Phase::kData, Phase::kForward, Phase::kBackward, Phase::kOptimizer, Phase::kLoss}) {
    std::vector<double> host, gpu, faults;
    for (std::size_t i = range.first; i < std::min(range.end, steps.size()); ++i) {
      host.push_back(steps[i][phase].host_ms);
      gpu.push_back(steps[i][phase].gpu_ms);
      faults.push_back(steps[i][phase].page_fault_ms);
    }
    median[phase] = Cost{Median(host), Median(gpu), Median(faults)};
  }
  return median;
}

PhaseCosts MedianOverSteps(const std::vector<PhaseCosts>& steps) {
  return MedianOverSteps(steps, {0, steps.size()});
}

// Per op of `placements`' segment, the device time it and every op nested in it launched (by
// its index in the segment); empty where no GPU probe recorded (a CPU trace's millions of ops
// need no column of zeros). A child starts after its parent (at a tie, the parent was recorded
// first), so visiting the latest start first adds each op's whole subtree to its parent.
std::vector<double> InclusiveGpuMs(const Timeline& timeline, const OpPlacements& placements,
                                   const std::vector<double>& gpu_ms_by_op) {
  if (gpu_ms_by_op.empty()) return {};
  const std::size_t first = placements.first();
  const auto from = gpu_ms_by_op.begin() + static_cast<std::ptrdiff_t>(first);
  std::vector<double> inclusive(from, from + static_cast<std::ptrdiff_t>(placements.size()));
  std::vector<std::size_t> latest_first(placements.size());
  for (std::size_t i = 0; i < latest_first.size(); ++i) latest_first[i] = first + i;
  std::sort(latest_first.begin(), latest_first.end(), [&](std::size_t a, std::size_t b) {
    const TimeNs start_a = timeline.ops[a].start_ns, start_b = timeline.ops[b].start_ns;
    return start_a != start_b ? start_a > start_b : a > b;
  });
  for (std::size_t i : latest_first) {
    const int parent = placements[i].parent;
    if (parent >= 0) inclusive[static_cast<std::size_t>(parent) - first] += inclusive[i - first];
  }
  return inclusive;
}

// One key of a phase and an op name.
std::uint64_t PhaseAndName(Phase phase, OpName name) {
  return std::uint64_t{static_cast<std::uint32_t>(phase)} << 32 | name.id();
}

// How many phases there are: kLoss is the last (engine/timeline/timeline.h).
constexpr std::size_t kPhases = static_cast<std::size_t>(Phase::kLoss) + 1;

// Per op of `placements`' segment, its host time outside the ops nested in it (same thread,
// `parent` links): its own time less each child's, child by child in index order, as a double
// (the reports print the sums to the last bit). Held only for the ops that enclose others, found
// by a bit an op and a count before each 64 of them: an op without children is its own time,
// worked out when asked. A column of every op's, 8 bytes an op, was the window's peak beside the
// ops and their placements (about half of a legacy trace's ops enclose others).
class SelfHostMs {
 public:
  SelfHostMs(const Timeline& timeline, const OpPlacements& placements)
      : ops_(timeline.ops), first_(placements.first()) {
    const std::size_t last = first_ + placements.size();
    encloses_.assign((placements.size() + kBits - 1) / kBits, 0);
    for (const OpPlacement& placement : placements) {
      if (placement.parent >= 0) {
        const auto parent = static_cast<std::size_t>(placement.parent) - first_;
        encloses_[parent / kBits] |= std::uint64_t{1} << (parent % kBits);
      }
    }
    enclosing_before_.resize(encloses_.size());
    std::size_t enclosing = 0;
    for (std::size_t word = 0; word < encloses_.size(); ++word) {
      enclosing_before_[word] = static_cast<std::uint32_t>(enclosing);
      enclosing += static_cast<std::size_t>(__builtin_popcountll(encloses_[word]));
    }
    self_.resize(enclosing);
    for (std::size_t i = first_; i < last; ++i) {
      if (Encloses(i)) self_[SlotOf(i)] = Ms(i);
    }
    for (std::size_t i = first_; i < last; ++i) {
      const int parent = placements[i].parent;
      if (parent >= 0) self_[SlotOf(static_cast<std::size_t>(parent))] -= Ms(i);
    }
  }

  double operator[](std::size_t i) const { return Encloses(i) ? self_[SlotOf(i)] : Ms(i); }

 private:
  static constexpr std::size_t kBits = 64;

  double Ms(std::size_t i) const { return (ops_[i].end_ns - ops_[i].start_ns) * 1e-6; }
  bool Encloses(std::size_t i) const {
    return (encloses_[(i - first_) / kBits] >> ((i - first_) % kBits)) & 1;
  }
  // Op i's place among the ops that enclose others (it is one).
  std::size_t SlotOf(std::size_t i) const {
    const std::size_t at = i - first_;
    const std::uint64_t below = (std::uint64_t{1} << (at % kBits)) - 1;
    return enclosing_before_[at / kBits] +
           static_cast<std::size_t>(__builtin_popcountll(encloses_[at / kBits] & below));
  }

  const std::vector<OpEvent>& ops_;
  const std::size_t first_;                      // the segment's first op
  std::vector<std::uint64_t> encloses_;  // bit j % 64 of word j / 64: op first_ + j has children
  std::vector<std::uint32_t> enclosing_before_;  // by word: the ops with children before it
  std::vector<double> self_;                     // of the ops with children, in index order
};

// The names' ids count through every name the process has seen (a bisection's windows, a
// fuzzer's inputs): each is given a dense slot of this window's the first time it is met.
constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

}  // namespace

// A trace names its few hundred ops millions of times: the tables are keyed by each op's
// interned name id, and an entry's name is spelt once, by the first op it counts.
struct WindowAttribution::Sums {
  // Top-level ops by module, then by phase and name id (PhaseAndName).
  std::map<ModulePath, std::unordered_map<std::uint64_t, OpCost>> by_module_op_id;
  std::vector<std::uint32_t> slot_of_id;  // 4 bytes an id up to the largest met
  std::vector<OpCost> by_name_slot;  // [slot * kPhases + phase]; no calls where no op was seen
};

WindowAttribution::WindowAttribution(const Timeline& timeline, const OpPlacements& placements,
                                     const std::vector<double>& gpu_ms_by_op)
    : WindowAttribution(timeline, !gpu_ms_by_op.empty()) {
  Add(placements, gpu_ms_by_op);
  Finish();
}

WindowAttribution::WindowAttribution(const Timeline& timeline, bool has_gpu)
    : steps_(static_cast<int>(timeline.steps.size())),
      has_gpu_(has_gpu),
      timeline_(&timeline),
      sums_(std::make_unique<Sums>()) {}

WindowAttribution::~WindowAttribution() = default;

struct SegmentCosts::Costs {
  std::vector<double> inclusive_gpu_ms;  // by op from the segment's first; empty without a GPU
  SelfHostMs self_host_ms;
};

SegmentCosts::SegmentCosts() = default;
SegmentCosts::~SegmentCosts() = default;
SegmentCosts::SegmentCosts(SegmentCosts&&) noexcept = default;
SegmentCosts& SegmentCosts::operator=(SegmentCosts&&) noexcept = default;

SegmentCosts WindowAttribution::CostsOf(const Timeline& timeline, const OpPlacements& placements,
                                        const std::vector<double>& gpu_ms_by_op) {
  SegmentCosts costs;
  costs.costs_ = std::make_unique<SegmentCosts::Costs>(SegmentCosts::Costs{
      InclusiveGpuMs(timeline, placements, gpu_ms_by_op), SelfHostMs(timeline, placements)});
  return costs;
}

void WindowAttribution::Add(const OpPlacements& placements,
                            const std::vector<double>& gpu_ms_by_op) {
  if (steps_ == 0) return;
  Add(placements, CostsOf(*timeline_, placements, gpu_ms_by_op), gpu_ms_by_op);
}

void WindowAttribution::Add(const OpPlacements& placements, const SegmentCosts& costs,
                            const std::vector<double>& gpu_ms_by_op) {
  if (steps_ == 0) return;
  const Timeline& timeline = *timeline_;
  const std::vector<double>& inclusive_gpu_ms = costs.costs_->inclusive_gpu_ms;
  const SelfHostMs& self_host_ms = costs.costs_->self_host_ms;
  const double page_fault_ms = timeline.page_fault_ns * 1e-6;
  std::vector<std::uint32_t>& slot_of_id = sums_->slot_of_id;
  std::vector<OpCost>& by_name_slot = sums_->by_name_slot;
  const double per_step = 1.0 / steps_;
  // Each module's tables, by its index in the segment: looked up in the maps of paths (compared
  // component by component) once a segment, not each time the top-level ops change module.
  struct ModuleTables {
    std::vector<PhaseCosts>* steps = nullptr;
    std::unordered_map<std::uint64_t, OpCost>* ops = nullptr;
  };
  std::vector<ModuleTables> tables;
  const std::size_t first = placements.first();
  for (std::size_t i = first; i < first + placements.size(); ++i) {
    const OpPlacement& placement = placements[i];
    // Outside the steps, or outside their phases (a script's validation loop between steps,
    // which the step's time holds as its rest): no phase's cost.
    if (placement.step < 0 || placement.phase == Phase::kOutside) continue;
    const OpEvent& op = timeline.ops[i];
    const std::uint32_t id = op.name.id();
    if (slot_of_id.size() <= id) slot_of_id.resize(std::size_t{id} + 1, kNoSlot);
    if (slot_of_id[id] == kNoSlot) {
      slot_of_id[id] = static_cast<std::uint32_t>(by_name_slot.size() / kPhases);
      by_name_slot.resize(by_name_slot.size() + kPhases);
    }
    const std::size_t slot = slot_of_id[id];
    const double host_ms = (op.end_ns - op.start_ns) * 1e-6;
    // Estimated from the count: never more than the op's whole time.
    const std::int64_t faults = timeline.CountsOf(i).page_faults;
    const double faults_ms = faults > 0 ? std::min(host_ms, faults * page_fault_ms) : 0;
    const Cost cost{host_ms, has_gpu_ ? inclusive_gpu_ms[i - first] : 0.0, faults_ms};
    OpCost& any_depth = by_name_slot[slot * kPhases + static_cast<std::size_t>(placement.phase)];
    if (any_depth.calls == 0) any_depth.name = op.name.str();
    any_depth.phase = placement.phase;
    any_depth.calls += per_step;
    any_depth.cost += Cost{cost.host_ms * per_step, cost.gpu_ms * per_step,
                           cost.page_fault_ms * per_step};
    any_depth.self_host_ms += self_host_ms[i] * per_step;
    const double self_gpu_ms = has_gpu_ ? gpu_ms_by_op[i] : 0.0;
    any_depth.self_gpu_ms += self_gpu_ms * per_step;
    if (placement.top_level != static_cast<int>(i)) continue;
    if (tables.size() <= placement.module) tables.resize(std::size_t{placement.module} + 1);
    ModuleTables& module = tables[placement.module];
    if (module.steps == nullptr) {
      module.steps = &self_by_step_[placements.ModuleOf(i)];
      module.steps->resize(steps_);
      module.ops = &sums_->by_module_op_id[placements.ModuleOf(i)];
    }
    (*module.steps)[placement.step][placement.phase] += cost;
    OpCost& top_level = (*module.ops)[PhaseAndName(placement.phase, op.name)];
    if (top_level.calls == 0) {
      top_level.name = op.name.str();
      top_level.module = placements.ModuleOf(i);
    }
    top_level.phase = placement.phase;
    top_level.calls += per_step;
    top_level.by_step.resize(steps_);
    top_level.self_by_step.resize(steps_);
    top_level.by_step[placement.step] += cost;
    top_level.self_by_step[placement.step] += Cost{self_host_ms[i], self_gpu_ms, 0};
  }
}

void WindowAttribution::Finish() {
  // The tables in the order of their names, as the reports have always listed them.
  std::map<std::tuple<ModulePath, Phase, std::string>, OpCost> by_op;
  for (auto& [module, entries] : sums_->by_module_op_id) {
    for (auto& [key, entry] : entries) {
      by_op.emplace(std::make_tuple(module, entry.phase, entry.name), std::move(entry));
    }
  }
  std::map<std::pair<Phase, std::string>, OpCost> by_name;
  for (OpCost& entry : sums_->by_name_slot) {
    if (entry.calls == 0) continue;
    by_name.emplace(std::make_pair(entry.phase, entry.name), std::move(entry));
  }
  for (auto& [key, entry] : by_op) ops_.push_back(std::move(entry));
  for (auto& [key, entry] : by_name) step_ops_.push_back(std::move(entry));
  std::sort(step_ops_.begin(), step_ops_.end(), [this](const OpCost& a, const OpCost& b) {
    return Rank(a.cost) > Rank(b.cost);
  });
  sums_.reset();
  timeline_ = nullptr;
}

std::vector<std::string> WindowAttribution::Modules() const {
  std::vector<std::string> modules;
  for (const auto& [path, steps] : self_by_step_) {
    if (!path.empty()) modules.push_back(path.str());
  }
  return modules;
}

namespace {

// `module` is `path` or inside it; "" (ops outside every instrumented module) is inside nothing.
bool IsInside(const ModulePath& module, const ModulePath& path) {
  return !module.empty() && IsSameOrDescendant(module, path);
}

}  // namespace

std::vector<PhaseCosts> WindowAttribution::SumPerStep(
    const std::function<bool(const ModulePath&)>& include) const {
  std::vector<PhaseCosts> totals(steps_);
  for (const auto& [module, steps] : self_by_step_) {
    if (!include(module)) continue;
    for (int i = 0; i < steps_; ++i) totals[i] += steps[i];
  }
  return totals;
}

PhaseCosts WindowAttribution::Self(const ModulePath& path) const {
  return MedianOverSteps(SumPerStep([&](const ModulePath& module) { return module == path; }));
}

PhaseCosts WindowAttribution::Inclusive(const ModulePath& path) const {
  return MedianOverSteps(
      SumPerStep([&](const ModulePath& module) { return IsInside(module, path); }));
}

std::vector<PhaseCosts> WindowAttribution::InclusiveOfEach(
    const std::vector<ModulePath>& paths) const {
  return InclusiveOfEach(
      paths, std::vector<StepRange>(paths.size(), {0, static_cast<std::size_t>(steps_)}));
}

std::vector<PhaseCosts> WindowAttribution::InclusiveOfEach(
    const std::vector<ModulePath>& paths, const std::vector<StepRange>& steps) const {
  std::unordered_map<ModulePath, std::vector<PhaseCosts>> sums;  // per path asked for, per step
  for (const ModulePath& path : paths) sums.emplace(path, std::vector<PhaseCosts>(steps_));
  // A module's own costs go to it and to each ancestor asked for, "" included, in the modules'
  // order: the sums Inclusive(path) adds, in the same order.
  for (const auto& [module, steps] : self_by_step_) {
    if (module.empty()) continue;  // outside every module: inside none
    for (ModulePath up = module;; up = up.Parent()) {
      if (const auto sum = sums.find(up); sum != sums.end()) {
        for (int i = 0; i < steps_; ++i) sum->second[i] += steps[i];
      }
      if (up.empty()) break;
    }
  }
  std::vector<PhaseCosts> inclusive;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    inclusive.push_back(MedianOverSteps(sums.at(paths[i]), steps.at(i)));
  }
  return inclusive;
}

PhaseCosts WindowAttribution::Step() const {
  return MedianOverSteps(SumPerStep([](const ModulePath&) { return true; }));
}

PhaseCosts WindowAttribution::SelfAt(const ModulePath& path, int step) const {
  auto it = self_by_step_.find(path);
  return it == self_by_step_.end() ? PhaseCosts{} : it->second.at(step);
}

PhaseCosts WindowAttribution::InclusiveAt(const ModulePath& path, int step) const {
  PhaseCosts total;
  for (const auto& [module, steps] : self_by_step_) {
    if (IsInside(module, path)) total += steps.at(step);
  }
  return total;
}

PhaseCosts WindowAttribution::StepAt(int step) const {
  PhaseCosts total;
  for (const auto& [module, steps] : self_by_step_) total += steps.at(step);
  return total;
}

std::vector<OpCost> WindowAttribution::TopOps(const ModulePath& path) const {
  // Merge the same op name and phase across the module's descendants.
  std::map<std::pair<Phase, std::string>, OpCost> merged;
  for (const OpCost& op : ops_) {
    if (!path.empty() && (op.module.empty() || !IsSameOrDescendant(op.module, path))) continue;
    if (op.phase == Phase::kLoss) continue;  // the script's own code, not the model's

    OpCost& entry = merged[{op.phase, op.name}];
    if (entry.name.empty()) {
      entry = op;
      entry.module = path;
    } else {
      entry.calls += op.calls;
      for (std::size_t step = 0; step < entry.by_step.size(); ++step) {
        entry.by_step[step] += op.by_step[step];
        entry.self_by_step[step] += op.self_by_step[step];
      }
    }
  }
  std::vector<OpCost> out;
  for (auto& [key, op] : merged) {
    std::vector<double> host, gpu, faults, work, self_host, self_gpu;
    for (const Cost& step : op.by_step) {
      host.push_back(step.host_ms);
      gpu.push_back(step.gpu_ms);
      faults.push_back(step.page_fault_ms);
      work.push_back(Work(step));
    }
    for (const Cost& step : op.self_by_step) {
      self_host.push_back(step.host_ms);
      self_gpu.push_back(step.gpu_ms);
    }
    op.cost = Cost{Median(host), Median(gpu), Median(faults)};
    op.work = Median(work);
    op.self_host_ms = Median(self_host);
    op.self_gpu_ms = Median(self_gpu);
    out.push_back(std::move(op));
  }
  std::sort(out.begin(), out.end(),
            [](const OpCost& a, const OpCost& b) { return a.work > b.work; });
  return out;
}

}  // namespace advisor
