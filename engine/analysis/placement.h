// Where each op of a window ran: which step, which phase, inside which instrumented module.
// Computed once from the timeline and shared by attribution, GPU attribution, sync/copy
// localisation and the trace writer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

struct ModuleStats;

const char* PhaseName(Phase phase);

struct OpPlacement {
  int step = -1;             // index into Timeline::steps; -1 outside every step
  Phase phase = Phase::kOutside;
  ModulePath module;         // innermost instrumented module instance, "" when none
  // The op whose cost this op's is part of: the outermost enclosing op on its thread (itself if
  // none encloses it). An op that encloses a module boundary (a marker on its thread falls inside
  // it: autograd Functions such as activation checkpointing run whole modules inside one op) is
  // no op's top level: its cost belongs to the ops inside it, each in its own module, and its own
  // top_level is -1.
  int top_level = -1;
  int parent = -1;           // index of the innermost enclosing op on its thread; -1 at top level
};

// One entry per Timeline::ops element, same order. A script's loss (Phase::kLoss) holds the ops
// run between the model's forward and backward() and, outside every instrumented module, the
// backward nodes those ops made (by sequence number) with the ops inside them: they run in the
// backward pass's time, but their cost is the loss's, not the model's.
std::vector<OpPlacement> PlaceOps(const Timeline& timeline);

// The loss's backward, per step (the mean over the timeline's steps): the host time of the
// loss's top-level ops that ran in the backward pass, not in the loss's own stretches.
double LossBackwardMs(const Timeline& timeline, const std::vector<OpPlacement>& placements);

// The top-level forward ops of one module instance: each kind, with the elements of the largest
// tensor input any of its calls took (-1 where the probe recorded none). An attention's
// aten::softmax input is its score matrix, batch x heads x queries x keys.
using ForwardOps = std::map<std::string, std::int64_t>;

// Adds to `by_module` the top-level forward ops of each instrumented module: the ops its forward
// called, those of its submodules included where they were not instrumented.
void AddForwardOps(const Timeline& timeline, const std::vector<OpPlacement>& placements,
                   std::map<ModulePath, ForwardOps>& by_module);

// A module's facts from its forward ops: `op_types` their kinds, `op_input_elements` the
// elements where recorded.
void SetForwardOps(const ForwardOps& ops, ModuleStats& stats);

}  // namespace advisor
