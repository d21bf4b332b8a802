// Ops that make a view of a tensor and do no arithmetic (aten::view, aten::slice, aten::select,
// ...): their host time is the dispatcher's and the op probe's alone. Measured in the same window
// as other ops, it says what an op costs beside its work on this machine at this load, which a
// fixed time cannot: a CPU's aten::std of 3,072 elements took 55 us with advisor's probe on the
// quiet 2-core VM and 59-76 us a call on the same VM under load (docs/benchmarks.md,
// bench/user_trial/lightning_docs.py), against its slices' 2 us.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/analysis/attribution.h"

namespace advisor {

bool IsViewOp(std::string_view name);

// The host time of the median call, in ms, of the forward view ops among `ops`, from each kind's
// mean call; none where there are none. One measure for both places that price a small op: a
// window's top-level ops (WindowAttribution::TopOps, the bisection's host-bound loops) and the
// ops labelled lines ran themselves (OwnOpsOfLines, rules/python_loop.lua's small op).
std::optional<double> ViewOpMs(const std::vector<OpCost>& ops);

}  // namespace advisor
