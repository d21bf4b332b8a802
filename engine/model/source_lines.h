// Lines of the user's code and what they cost a step: the hot spot module's lines and the loss's
// (a script's labelled steps, engine/analysis/line_costs). Sections of RunReport
// (engine/model/run_report.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/finding.h"

namespace advisor {

// The ops of one name a line of the user's code ran itself (the median step's): whether the line's
// time is in many small ops or in one costly op it repeats (rules/python_loop.lua).
struct LineOpKind {
  std::string name;  // "aten::matmul"
  double calls = 0;  // per step
  double us = 0;     // the mean call's host time
  double share = 0;  // of the line's ops' host time
};

// One line of the user's code: what it ran in labelled steps (the median step's), and its part of
// the time of the code it belongs to (the module's or the loss's), per step.
struct SourceLine {
  SourceLocation source;
  double runs = 0;   // the times it ran (a loop's body line: once an iteration)
  double ops = 0;    // the outermost ATen ops it ran, not those of the labelled lines it called
  double op_us = 0;  // those ops' mean host time
  std::vector<LineOpKind> op_kinds;  // those ops by name, costliest first
  // runs and ops over the module's forward calls in the step, for a module's line (a loop in the
  // forward runs many times a call; a module called many times a step need not); absent for the
  // loss's.
  std::optional<double> runs_per_call;
  std::optional<double> ops_per_call;
  double ms = 0;     // its part of its scope's time: its own and its ops' backward nodes'
  double share = 0;  // ms of the step
};

// One line of the user's code that ran the hot spot's op (for a backward node, the line whose
// forward op made it), and its part of the op's time: one op name made at two lines of a module
// (a relative-position product and a dropout's mask, each a MulBackward0) is two of them.
struct OpLine {
  SourceLocation source;
  std::string forward_op;  // the op the line called that ran it or made it ("aten::dropout")
  double calls = 0;        // the op's runs a step at this line, in the labelled steps
  double ms = 0;           // its part of the hot spot's ms: its share of the op's labelled time
  double share = 0;        // ms over the hot spot's ms
};

// A script's loss: the time from the model's forward returning to backward() and the backward
// nodes its ops made (docs/script-mode.md, "Steps"), with the lines that spent it.
struct LossCost {
  double ms = 0;           // the loss phase, per step (StepBreakdown::loss_ms)
  double backward_ms = 0;  // its backward nodes' host time per step, inside the backward phase
  double share = 0;        // ms + backward_ms, of the profiled step
  // Heaviest first, where they were read (a loss of at least kLossLinesShare of the step).
  std::vector<SourceLine> lines;
};

}  // namespace advisor
