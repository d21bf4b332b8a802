#include "engine/analysis/attribution.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <tuple>
#include <unordered_map>

#include "engine/analysis/ordered_sums.h"
#include "engine/analysis/phase_spanning_ops.h"
#include "engine/util/median.h"

namespace advisor {

Cost& PhaseCosts::operator[](Phase phase) {
  switch (phase) {
    case Phase::kData:
      return data;
    case Phase::kForward:
      return forward;
    case Phase::kBackward:
      return backward;
    case Phase::kLoss:
      return loss;
    default:
      return optimizer;
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
  const std::size_t first_;              // the segment's first op
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
  std::vector<OpCost> by_name_slot;       // [slot * kPhases + phase]; no calls where no op was seen
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

// Of one segment: the window's entries its ops reach, each found by what keys it there, and the
// numbers they add to each, in the ops' order. The sums kept per step (a module's, an op's by
// step) are their own OrderedSums: a segment holds whole steps (OpSegments), so their totals are
// still +0 when it is added and take its sums as they are, without its addends walked again.
struct SegmentAttribution::Part {
  // The sums of an entry of the whole step's ops (StepOps), added once for each of its ops.
  enum AnyDepthSum : std::uint32_t { kHost, kGpu, kPageFaults, kSelfHost, kSelfGpu, kAnyDepthSums };
  // Ops of one name in one phase, at any depth.
  struct AnyDepth {
    OpName name;
    Phase phase = Phase::kOutside;
    std::uint32_t calls = 0;
    std::uint32_t sums = 0;  // the first of its kAnyDepthSums in `window_sums`
  };
  // A module's top-level ops of one name in one phase.
  struct TopLevel {
    std::uint32_t module = 0;  // its index in `modules`
    OpName name;
    Phase phase = Phase::kOutside;
    std::uint32_t calls = 0;
  };
  // The sums of a top-level entry in one step: its cost, then its self cost's host and device
  // times.
  enum TopLevelStepSum : std::uint32_t {
    kStepHost,
    kStepGpu,
    kStepPageFaults,
    kStepSelfHost,
    kStepSelfGpu,
    kTopLevelStepSums
  };
  struct TopLevelStep {
    std::uint32_t entry = 0;  // its index in `top_level`
    int step = 0;
    std::uint32_t sums = 0;  // the first of its kTopLevelStepSums in `step_sums`
  };
  // A module's own cost in one phase of one step: a Cost's sums.
  enum ModuleStepSum : std::uint32_t {
    kModuleHost,
    kModuleGpu,
    kModulePageFaults,
    kModuleStepSums
  };
  struct ModuleStep {
    std::uint32_t module = 0;
    int step = 0;
    Phase phase = Phase::kOutside;
    std::uint32_t sums = 0;  // the first of its kModuleStepSums in `step_sums`
  };

  std::vector<ModulePath> modules;  // those with top-level ops, by the segment's index
  std::vector<AnyDepth> any_depth;
  std::vector<TopLevel> top_level;
  std::vector<TopLevelStep> top_level_steps;
  std::vector<ModuleStep> module_steps;
  OrderedSums window_sums;  // any_depth's
  OrderedSums step_sums;    // top_level_steps' and module_steps'
};

SegmentAttribution::SegmentAttribution() = default;
SegmentAttribution::~SegmentAttribution() = default;
SegmentAttribution::SegmentAttribution(SegmentAttribution&&) noexcept = default;
SegmentAttribution& SegmentAttribution::operator=(SegmentAttribution&&) noexcept = default;

namespace {

// The entries of one segment's part as its ops reach them: each found by what keys it, in tables
// indexed by the segment's own dense numbers (its names, its modules, its steps from the first),
// and made the first time. A few lookups for every op of the window: no tree or hash on the way.
class PartBuilder {
 public:
  using Part = SegmentAttribution::Part;
  // `first_step` and `steps`: the steps the segment's ops are in, [first_step, first_step + steps).
  PartBuilder(Part& part, int first_step, std::size_t steps)
      : part_(part), first_step_(first_step), steps_(steps) {}

  Part::AnyDepth& AnyDepthOf(OpName name, Phase phase) {
    std::uint32_t& entry = any_depth_of_[NameSlotOf(name) * kPhases + PhaseIndex(phase)];
    if (entry == kNone) {
      entry = static_cast<std::uint32_t>(part_.any_depth.size());
      part_.any_depth.push_back({name, phase, 0, NewSums(part_.window_sums, Part::kAnyDepthSums)});
    }
    return part_.any_depth[entry];
  }

  // The top-level entry of op `op` (named `name`, in `phase`) in its module.
  std::uint32_t TopLevelOf(const OpPlacements& placements, std::size_t op, OpName name,
                           Phase phase) {
    const std::uint32_t module = ModuleOf(placements, op);
    std::vector<std::uint32_t>& of_module = top_level_of_[module];
    const std::size_t at = NameSlotOf(name) * kPhases + PhaseIndex(phase);
    if (of_module.size() <= at) of_module.resize((at / kPhases + 1) * kPhases, kNone);
    std::uint32_t& entry = of_module[at];
    if (entry == kNone) {
      entry = static_cast<std::uint32_t>(part_.top_level.size());
      part_.top_level.push_back({module, name, phase, 0});
      top_level_step_of_.resize(top_level_step_of_.size() + steps_, kNone);
    }
    return entry;
  }

  // The first sum of top-level entry `entry`'s in `step`.
  std::uint32_t TopLevelStepOf(std::uint32_t entry, int step) {
    std::uint32_t& sums = top_level_step_of_[entry * steps_ + StepIndex(step)];
    if (sums == kNone) {
      sums = NewSums(part_.step_sums, Part::kTopLevelStepSums);
      part_.top_level_steps.push_back({entry, step, sums});
    }
    return sums;
  }

  // The first sum of the module op `op` is top-level in, in `phase` of `step`.
  std::uint32_t ModuleStepOf(const OpPlacements& placements, std::size_t op, int step,
                             Phase phase) {
    const std::uint32_t module = ModuleOf(placements, op);
    std::uint32_t& sums =
        module_step_of_[(module * steps_ + StepIndex(step)) * kPhases + PhaseIndex(phase)];
    if (sums == kNone) {
      sums = NewSums(part_.step_sums, Part::kModuleStepSums);
      part_.module_steps.push_back({module, step, phase, sums});
    }
    return sums;
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  static std::size_t PhaseIndex(Phase phase) { return static_cast<std::size_t>(phase); }
  std::size_t StepIndex(int step) const { return static_cast<std::size_t>(step - first_step_); }

  static std::uint32_t NewSums(OrderedSums& sums, std::uint32_t count) {
    const std::uint32_t first = sums.NewSum();
    for (std::uint32_t k = 1; k < count; ++k) sums.NewSum();
    return first;
  }

  // The segment's dense number for `name`: names' ids count through every name the process has
  // seen.
  std::size_t NameSlotOf(OpName name) {
    if (slot_of_id_.size() <= name.id()) slot_of_id_.resize(std::size_t{name.id()} + 1, kNone);
    std::uint32_t& slot = slot_of_id_[name.id()];
    if (slot == kNone) {
      slot = static_cast<std::uint32_t>(any_depth_of_.size() / kPhases);
      any_depth_of_.resize(any_depth_of_.size() + kPhases, kNone);
    }
    return slot;
  }

  // Op `op`'s module's index among the part's modules.
  std::uint32_t ModuleOf(const OpPlacements& placements, std::size_t op) {
    const std::uint32_t module = placements[op].module;
    if (module_of_.size() <= module) module_of_.resize(std::size_t{module} + 1, kNone);
    if (module_of_[module] == kNone) {
      module_of_[module] = static_cast<std::uint32_t>(part_.modules.size());
      part_.modules.push_back(placements.ModuleOf(op));
      top_level_of_.emplace_back();
      module_step_of_.resize(module_step_of_.size() + steps_ * kPhases, kNone);
    }
    return module_of_[module];
  }

  Part& part_;
  const int first_step_;
  const std::size_t steps_;
  std::vector<std::uint32_t> slot_of_id_;                 // by name id: the name's slot
  std::vector<std::uint32_t> any_depth_of_;               // [slot * kPhases + phase]
  std::vector<std::uint32_t> module_of_;                  // by the placements' module index
  std::vector<std::vector<std::uint32_t>> top_level_of_;  // by module: [slot * kPhases + phase]
  // [entry * steps_ + step - first_step_]
  std::vector<std::uint32_t> top_level_step_of_;
  // [(module * steps_ + step - first_step_) * kPhases + phase]
  std::vector<std::uint32_t> module_step_of_;
};

// Whether op i runs inside an op of its own name in its phase: torch dispatches some ops to an
// overload of the same name (torch 2's aten::std runs an aten::std inside it), and the recursion
// is one call of the outermost, whose inclusive time holds the inner ones'.
bool InsideItsOwnName(const Timeline& timeline, const OpPlacements& placements, std::size_t i) {
  const OpName name = timeline.ops[i].name;
  const Phase phase = placements[i].phase;
  for (int up = placements[i].parent; up >= 0;) {
    const auto enclosing = static_cast<std::size_t>(up);
    if (timeline.ops[enclosing].name == name && placements[enclosing].phase == phase) return true;
    up = placements[enclosing].parent;
  }
  return false;
}

// The steps the ops `placements` places are in, [first, first + count); none outside every step.
std::pair<int, std::size_t> StepsPlaced(const OpPlacements& placements) {
  int first = -1, last = -1;
  for (const OpPlacement& placement : placements) {
    if (placement.step < 0) continue;
    if (first < 0 || placement.step < first) first = placement.step;
    last = std::max(last, placement.step);
  }
  return {first, first < 0 ? 0 : static_cast<std::size_t>(last - first + 1)};
}

}  // namespace

SegmentAttribution WindowAttribution::PartOf(const Timeline& timeline,
                                             const OpPlacements& placements,
                                             const std::vector<double>& gpu_ms_by_op) {
  using Part = SegmentAttribution::Part;
  SegmentAttribution segment;
  segment.part_ = std::make_unique<Part>();
  Part& part = *segment.part_;
  if (timeline.steps.empty()) return segment;
  const bool has_gpu = !gpu_ms_by_op.empty();
  const std::vector<double> inclusive_gpu_ms = InclusiveGpuMs(timeline, placements, gpu_ms_by_op);
  const SelfHostMs self_host_ms(timeline, placements);
  const double page_fault_ms = timeline.page_fault_ns * 1e-6;
  const double per_step = 1.0 / static_cast<double>(timeline.steps.size());
  const auto [first_step, step_count] = StepsPlaced(placements);
  PartBuilder entries(part, first_step, step_count);
  // At most an addend of each sum an op adds to: five for every op, eight more for a top-level
  // op (a +0, a CPU trace's device time, is not kept).
  part.window_sums.Reserve(placements.size() * Part::kAnyDepthSums);
  part.step_sums.Reserve(placements.size() * (Part::kModuleStepSums + Part::kTopLevelStepSums));
  const std::unordered_map<std::size_t, PhaseSpanningCost> spanning =
      PhaseSpanningOps(timeline, placements, gpu_ms_by_op, inclusive_gpu_ms);
  const std::size_t first = placements.first();
  for (std::size_t i = first; i < first + placements.size(); ++i) {
    const OpPlacement& placement = placements[i];
    const OpEvent& op = timeline.ops[i];
    Phase phase = placement.phase;
    double host_ms = (op.end_ns - op.start_ns) * 1e-6;
    double gpu_ms = has_gpu ? inclusive_gpu_ms[i - first] : 0.0;
    double self_host = self_host_ms[i];
    // A trainer's range around the model's step: its part after the model's phases.
    const auto spanning_op = spanning.empty() ? spanning.end() : spanning.find(i);
    if (spanning_op != spanning.end()) {
      phase = spanning_op->second.phase;
      host_ms = spanning_op->second.host_ms;
      gpu_ms = spanning_op->second.gpu_ms;
      self_host = spanning_op->second.self_host_ms;
    }
    // Outside the steps, or outside their phases (a script's validation loop between steps,
    // which the step's time holds as its rest): no phase's cost.
    if (placement.step < 0 || phase == Phase::kOutside) continue;
    // Estimated from the count: never more than the op's whole time.
    const std::int64_t faults = timeline.CountsOf(i).page_faults;
    const double faults_ms = faults > 0 ? std::min(host_ms, faults * page_fault_ms) : 0;
    const Cost cost{host_ms, gpu_ms, faults_ms};
    const double self_gpu = has_gpu ? gpu_ms_by_op[i] : 0.0;

    Part::AnyDepth& any_depth = entries.AnyDepthOf(op.name, phase);
    OrderedSums& window = part.window_sums;
    // A recursion is one call, its time the outermost's; each level's self time is its own.
    if (!InsideItsOwnName(timeline, placements, i)) {
      ++any_depth.calls;
      window.Add(any_depth.sums + Part::kHost, cost.host_ms * per_step);
      window.Add(any_depth.sums + Part::kGpu, cost.gpu_ms * per_step);
      window.Add(any_depth.sums + Part::kPageFaults, cost.page_fault_ms * per_step);
    }
    window.Add(any_depth.sums + Part::kSelfHost, self_host * per_step);
    window.Add(any_depth.sums + Part::kSelfGpu, self_gpu * per_step);
    if (placement.top_level != static_cast<int>(i)) continue;

    OrderedSums& steps = part.step_sums;
    const std::uint32_t module_step =
        entries.ModuleStepOf(placements, i, placement.step, placement.phase);
    steps.Add(module_step + Part::kModuleHost, cost.host_ms);
    steps.Add(module_step + Part::kModuleGpu, cost.gpu_ms);
    steps.Add(module_step + Part::kModulePageFaults, cost.page_fault_ms);
    const std::uint32_t top_level = entries.TopLevelOf(placements, i, op.name, placement.phase);
    ++part.top_level[top_level].calls;
    const std::uint32_t top_level_step = entries.TopLevelStepOf(top_level, placement.step);
    steps.Add(top_level_step + Part::kStepHost, cost.host_ms);
    steps.Add(top_level_step + Part::kStepGpu, cost.gpu_ms);
    steps.Add(top_level_step + Part::kStepPageFaults, cost.page_fault_ms);
    steps.Add(top_level_step + Part::kStepSelfHost, self_host);
    steps.Add(top_level_step + Part::kStepSelfGpu, self_gpu);
  }
  return segment;
}

void WindowAttribution::Add(const OpPlacements& placements,
                            const std::vector<double>& gpu_ms_by_op) {
  if (steps_ == 0) return;
  Add(PartOf(*timeline_, placements, gpu_ms_by_op));
}

void WindowAttribution::Add(const SegmentAttribution& segment) {
  using Part = SegmentAttribution::Part;
  if (steps_ == 0) return;
  const Part& part = *segment.part_;
  const double per_step = 1.0 / steps_;
  // The entries of the whole step's ops, each given a dense slot of this window's the first time
  // its name is met; all made before any is pointed at, as making one may move the others.
  std::vector<std::uint32_t>& slot_of_id = sums_->slot_of_id;
  std::vector<OpCost>& by_name_slot = sums_->by_name_slot;
  std::vector<std::size_t> any_depth_at;  // by the part's entry: its index in by_name_slot
  for (const Part::AnyDepth& entry : part.any_depth) {
    const std::uint32_t id = entry.name.id();
    if (slot_of_id.size() <= id) slot_of_id.resize(std::size_t{id} + 1, kNoSlot);
    if (slot_of_id[id] == kNoSlot) {
      slot_of_id[id] = static_cast<std::uint32_t>(by_name_slot.size() / kPhases);
      by_name_slot.resize(by_name_slot.size() + kPhases);
    }
    any_depth_at.push_back(slot_of_id[id] * kPhases + static_cast<std::size_t>(entry.phase));
  }
  std::vector<double*> window_totals(part.window_sums.size());
  for (std::size_t k = 0; k < part.any_depth.size(); ++k) {
    const Part::AnyDepth& entry = part.any_depth[k];
    OpCost& any_depth = by_name_slot[any_depth_at[k]];
    if (any_depth.calls == 0) any_depth.name = entry.name.str();
    any_depth.phase = entry.phase;
    AddRepeatedly(any_depth.calls, per_step, entry.calls);
    window_totals[entry.sums + Part::kHost] = &any_depth.cost.host_ms;
    window_totals[entry.sums + Part::kGpu] = &any_depth.cost.gpu_ms;
    window_totals[entry.sums + Part::kPageFaults] = &any_depth.cost.page_fault_ms;
    window_totals[entry.sums + Part::kSelfHost] = &any_depth.self_host_ms;
    window_totals[entry.sums + Part::kSelfGpu] = &any_depth.self_gpu_ms;
  }
  part.window_sums.AddTo(window_totals);

  // The modules' tables, made the first time a module's top-level op is met, as every module's
  // and op's list of steps.
  std::vector<std::vector<PhaseCosts>*> module_steps;
  std::vector<std::unordered_map<std::uint64_t, OpCost>*> module_ops;
  for (const ModulePath& module : part.modules) {
    std::vector<PhaseCosts>& steps = self_by_step_[module];
    steps.resize(steps_);
    module_steps.push_back(&steps);
    module_ops.push_back(&sums_->by_module_op_id[module]);
  }
  std::vector<OpCost*> top_level;  // by the part's entry
  for (const Part::TopLevel& entry : part.top_level) {
    OpCost& op = (*module_ops[entry.module])[PhaseAndName(entry.phase, entry.name)];
    if (op.calls == 0) {
      op.name = entry.name.str();
      op.module = part.modules[entry.module];
    }
    op.phase = entry.phase;
    AddRepeatedly(op.calls, per_step, entry.calls);
    op.by_step.resize(steps_);
    op.self_by_step.resize(steps_);
    top_level.push_back(&op);
  }
  std::vector<double*> step_totals(part.step_sums.size());
  for (const Part::TopLevelStep& entry : part.top_level_steps) {
    Cost& cost = top_level[entry.entry]->by_step[entry.step];
    Cost& self = top_level[entry.entry]->self_by_step[entry.step];
    step_totals[entry.sums + Part::kStepHost] = &cost.host_ms;
    step_totals[entry.sums + Part::kStepGpu] = &cost.gpu_ms;
    step_totals[entry.sums + Part::kStepPageFaults] = &cost.page_fault_ms;
    step_totals[entry.sums + Part::kStepSelfHost] = &self.host_ms;
    step_totals[entry.sums + Part::kStepSelfGpu] = &self.gpu_ms;
  }
  for (const Part::ModuleStep& entry : part.module_steps) {
    Cost& cost = (*module_steps[entry.module])[entry.step][entry.phase];
    step_totals[entry.sums + Part::kModuleHost] = &cost.host_ms;
    step_totals[entry.sums + Part::kModuleGpu] = &cost.gpu_ms;
    step_totals[entry.sums + Part::kModulePageFaults] = &cost.page_fault_ms;
  }
  part.step_sums.AddTo(step_totals);
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
  std::sort(step_ops_.begin(), step_ops_.end(),
            [this](const OpCost& a, const OpCost& b) { return Rank(a.cost) > Rank(b.cost); });
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
