// Materialised broadcast temporaries: a top-level elementwise op of a module's forward whose
// inputs, broadcast together, make many times the elements of the largest of them (a - b of
// [B, T, 1, D] and [B, 1, T, D] writes B x T x T x D), and the ops that read the temporary right
// after it. What they cost, and whether a reduction follows (pairwise distances that a matmul or
// torch.cdist computes without the temporary), is for the rules (rules/broadcast_temporary.lua).
#pragma once

#include <vector>

#include "engine/analysis/placement.h"
#include "engine/model/localisation.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// A broadcast writing fewer than this many times its largest input's elements is left out: a
// bias or a mask added to a tensor writes as many as the tensor holds (1x), an RBF expansion of
// distances over 16 centres 16x.
inline constexpr double kMinBroadcastExpansion = 8.0;

// The window's temporaries, costliest first, each with its cost per step (the median over the
// window's steps) and its share of `step_ms`, the window's mean step. One per module, op and
// size: the calls of one line in each step are one temporary.
std::vector<BroadcastTemporary> FindBroadcastTemporaries(const Timeline& timeline,
                                                         const OpPlacements& placements,
                                                         double step_ms);

}  // namespace advisor
