// How much of a module's time is a host-bound loop: one forward op run many times a step, each
// run doing little beyond its dispatch. That is what a Python loop over a batch looks like from
// the ops (recsys_train.py's history mean, 512 aten::mean a step), and what vectorising the loop
// saves at least (rules/python_loop.lua, which names the line once the bisection has reached the
// module): the backward nodes the loop made go too, but a backward node run once per parameter
// (AccumulateGrad in a deep stack of layers) is no loop. The level's choice sets it against an
// anomaly's excess beside it.
#pragma once

#include <optional>
#include <vector>

#include "engine/analysis/attribution.h"

namespace advisor {

// An op name run at least this many times a step inside one module is a loop's body: the
// python-loop rule's 64 small ops a call from one line (its loops run 16 times a call or more).
inline constexpr double kLoopCallsAStep = 64;
// ... when a run averages at most this many times a view op's host time in the same window
// (engine/analysis/view_ops.h): the python-loop rule's small op, whose cost is the interpreter's,
// the dispatcher's and the op's fixed set-up rather than its arithmetic. A time measured beside
// the loop's ops stretches with them where the machine is slower or busier, where a fixed limit
// did not: lightning_docs.py's aten::std of 3,072 elements took 55 us a call on the quiet 2-core
// VM and 59-76 us under load, over the 50 us limit of before, against its slices' 2 us (27x).
// The ops that do work stay above it: a decoder's matmuls of 0.2 ms a call are 100 slices' time
// (the slices' 2 us: advisor's lines of lightning_docs.py on the quiet VM, 2026-11-30).
inline constexpr double kSmallOpViews = 50;
// ... or, where the window ran no view op, this much host time: the limit on the quiet VM.
inline constexpr double kSmallOpMs = 0.05;

// The host time of a small op, per run: kSmallOpViews view ops' (`view_op_ms`: ViewOpMs of the
// window's top-level ops), kSmallOpMs without one.
double SmallOpMs(std::optional<double> view_op_ms);

// The cost a step of the forward ops among `ops` (one module's TopOps) that ran as a host-bound
// loop, each run at most `small_op_ms` (SmallOpMs): their device time where the level ranks by it
// (WindowAttribution::Rank), their host time otherwise.
double HostLoopCost(const std::vector<OpCost>& ops, bool ranked_on_device, double small_op_ms);

}  // namespace advisor
