// How much of a module's time is a host-bound loop: one forward op run many times a step, each
// run doing little beyond its dispatch. That is what a Python loop over a batch looks like from
// the ops (recsys_train.py's history mean, 512 aten::mean a step), and what vectorising the loop
// saves at least (rules/python_loop.lua, which names the line once the bisection has reached the
// module): the backward nodes the loop made go too, but a backward node run once per parameter
// (AccumulateGrad in a deep stack of layers) is no loop. The level's choice sets it against an
// anomaly's excess beside it.
#pragma once

#include <vector>

#include "engine/analysis/attribution.h"

namespace advisor {

// An op name run at least this many times a step inside one module is a loop's body: the
// python-loop rule's 64 small ops a call from one line (its loops run 16 times a call or more).
inline constexpr double kLoopCallsAStep = 64;
// ... when a run averages at most this much host time: the python-loop rule's small op, whose
// cost is the interpreter's and the dispatcher's rather than its arithmetic.
inline constexpr double kSmallOpMs = 0.05;

// The cost a step of the forward ops among `ops` (one module's TopOps) that ran as a host-bound
// loop: their device time where the level ranks by it (WindowAttribution::Rank), their host time
// otherwise.
double HostLoopCost(const std::vector<OpCost>& ops, bool ranked_on_device);

}  // namespace advisor
