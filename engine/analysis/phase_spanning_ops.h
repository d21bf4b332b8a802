// User ranges that span several phases of their step: a trainer's range around the whole of one
// (Lightning's `Optimizer.step#AdamW.step` under automatic optimization, which holds the
// closure's forward and backward before the update). Such an op is no op's top level
// (OpPlacement::top_level), but the whole step's op table (WindowAttribution::StepOps) lists
// every op at any depth: there it is one op of the phase it ends in, at its time in that phase,
// and the model's forward and backward inside it stay their own phases' ops.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// What the op table counts of a phase-spanning op.
struct PhaseSpanningCost {
  // The phase of the last stretch of its step it overlaps (of a step's phases, not kOutside):
  // the optimizer's update runs after the closure it calls.
  Phase phase = Phase::kOutside;
  double host_ms = 0;       // its time in that phase's stretches
  double self_host_ms = 0;  // of it, the time outside the ops nested in it
  double gpu_ms = 0;        // device time it and the ops nested in it in that phase launched
};

// Of the ops `placements` places, those that are no op's top level and overlap stretches of more
// than one phase of their step, by index in the timeline. `gpu_ms_by_op`: device time each
// op launched itself (as WindowAttribution takes it), or empty; `inclusive_gpu_ms`: the same
// with the ops nested in each, by index from placements.first(), or empty.
std::unordered_map<std::size_t, PhaseSpanningCost> PhaseSpanningOps(
    const Timeline& timeline, const OpPlacements& placements,
    const std::vector<double>& gpu_ms_by_op, const std::vector<double>& inclusive_gpu_ms);

}  // namespace advisor
