#include "engine/analysis/phase_spanning_ops.h"

#include <algorithm>
#include <optional>

namespace advisor {
namespace {

// The time of [start, end) in the stretches of `step` in `phase`.
TimeNs TimeIn(const StepSpan& step, Phase phase, TimeNs start, TimeNs end) {
  TimeNs total = 0;
  for (const PhaseSpan& span : step.phases) {
    if (span.phase != phase) continue;
    total += std::max<TimeNs>(0, std::min(end, span.end_ns) - std::max(start, span.start_ns));
  }
  return total;
}

// The phase of the last stretch of `step` that [start, end) overlaps, where it overlaps stretches
// of more than one of the step's phases; none otherwise.
std::optional<Phase> LastOfSeveralPhases(const StepSpan& step, TimeNs start, TimeNs end) {
  std::optional<Phase> first, last;
  bool several = false;
  for (const PhaseSpan& span : step.phases) {
    if (span.phase == Phase::kOutside || span.end_ns <= start || end <= span.start_ns) continue;
    if (!first) first = span.phase;
    several = several || span.phase != *first;
    last = span.phase;
  }
  return several ? last : std::nullopt;
}

}  // namespace

std::unordered_map<std::size_t, PhaseSpanningCost> PhaseSpanningOps(
    const Timeline& timeline, const OpPlacements& placements,
    const std::vector<double>& gpu_ms_by_op, const std::vector<double>& inclusive_gpu_ms) {
  std::unordered_map<std::size_t, PhaseSpanningCost> spanning;
  const std::size_t first = placements.first(), last = first + placements.size();
  for (std::size_t i = first; i < last; ++i) {
    const OpPlacement& placement = placements[i];
    // One that runs into another phase is no op's top level (PlaceOps).
    if (placement.top_level != -1 || placement.step < 0) continue;
    const OpEvent& op = timeline.ops[i];
    const StepSpan& step = timeline.steps[placement.step];
    const std::optional<Phase> phase = LastOfSeveralPhases(step, op.start_ns, op.end_ns);
    if (!phase) continue;
    const double in_phase_ms = TimeIn(step, *phase, op.start_ns, op.end_ns) * 1e-6;
    spanning[i] = {*phase, in_phase_ms, in_phase_ms, gpu_ms_by_op.empty() ? 0.0 : gpu_ms_by_op[i]};
  }
  if (spanning.empty()) return spanning;
  // Its children's time in its phase is theirs (the optimizer's update ops are the optimizer
  // phase's), and so is the device time of those of them counted in it. The latest op first: a
  // child that spans phases itself has its own children's device time by then.
  for (std::size_t j = last; j-- > first;) {
    const int parent = placements[j].parent;
    if (parent < 0) continue;
    const auto enclosing = spanning.find(static_cast<std::size_t>(parent));
    if (enclosing == spanning.end()) continue;
    PhaseSpanningCost& cost = enclosing->second;
    const OpEvent& child = timeline.ops[j];
    const StepSpan& step = timeline.steps[placements[static_cast<std::size_t>(parent)].step];
    cost.self_host_ms -= TimeIn(step, cost.phase, child.start_ns, child.end_ns) * 1e-6;
    if (inclusive_gpu_ms.empty()) continue;
    const auto spanning_child = spanning.find(j);
    if (spanning_child != spanning.end()) {
      if (spanning_child->second.phase == cost.phase) cost.gpu_ms += spanning_child->second.gpu_ms;
    } else if (placements[j].phase == cost.phase) {
      cost.gpu_ms += inclusive_gpu_ms[j - first];
    }
  }
  return spanning;
}

}  // namespace advisor
