// What each line of the user's code cost in labelled steps: steps in which the script door ran
// each line of the code in question inside a range naming it
// (probes/python/site/advisor_probe/sources.py), a line that calls into more labelled code
// around their lines' ranges. The hot spot module's lines, and the loss's.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/model/source_lines.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct LabelledSteps {
  Timeline timeline;  // its steps, their ops and the label ranges among them
  // Index into timeline.ops of each label range, and the line it names.
  std::map<std::size_t, SourceLocation> labels;
  // The labelled module's forward calls in the steps; 0 where the scope is no module (the loss).
  int scope_calls = 0;
};

// The ops of one name a line ran itself: each number the median of the steps'.
struct LineOps {
  std::string name;
  double calls = 0;
  double ms = 0;  // their host time
};

// One line in labelled steps: each number the median of the steps'.
struct LineCost {
  SourceLocation source;
  double runs = 0;                // its ranges: the times it ran
  double ops = 0;                 // the outermost ATen ops that ran in it (not in a line it called)
  double op_ms = 0;               // those ops' host time
  std::vector<LineOps> op_kinds;  // those ops by name, costliest first
  double own_ms = 0;              // its ranges' time less the labelled lines' inside them
  double backward_ms = 0;         // the backward nodes its ops made (by sequence number)
  double ms() const { return own_ms + backward_ms; }
};

// Every labelled line, heaviest (ms()) first.
std::vector<LineCost> CostsByLine(const LabelledSteps& step);

// The ops the lines ran themselves, by name, as a window's forward ops (per step): ViewOpMs of
// them is what a view op cost in the same steps as the lines' ops (rules/python_loop.lua: a small
// op), read from the same placement of the ops as the lines' costs.
std::vector<OpCost> OwnOpsOfLines(const std::vector<LineCost>& lines);

// The forward calls a step of the labelled module (LabelledSteps::scope_calls); 0 for the loss.
double CallsPerStep(const LabelledSteps& step);

// The lines of a scope (`costs`: CostsByLine of its labelled steps, `calls_per_step`:
// CallsPerStep's) that took `scope_ms` of a `step_ms` step in the windows: each line's part of
// the labelled steps' lines' time, times scope_ms (labelling slows the lines, not their
// proportions), heaviest first; at most kMaxScopeLines, each at least kMinLineShare of the step.
inline constexpr std::size_t kMaxScopeLines = 8;
inline constexpr double kMinLineShare = 0.01;
std::vector<SourceLine> ScopeLines(const std::vector<LineCost>& costs, double calls_per_step,
                                   double scope_ms, double step_ms);

// One line of the user's code that ran an op, and what the op cost there: each number the median
// of the labelled steps'.
struct OpSite {
  SourceLocation source;
  // The outermost ATen op the line called that ran the op or, for a backward node, made it (by
  // sequence number): "aten::dropout" for the MulBackward0 of F.dropout's own aten::mul.
  std::string forward_op;
  double calls = 0;  // the op's runs
  double ms = 0;     // its host time
};

// The lines that ran `op`, costliest first. A forward op ("aten::mul") belongs to the innermost
// line around it, counted where it runs inside no op of its own name; a backward node
// ("MulBackward0") to the line of the forward op that made it, by sequence number. One op name made
// at two lines of a module (a relative-position product and a dropout's mask, each a
// MulBackward0 in the backward) is two sites, each with its own cost.
std::vector<OpSite> SitesOfOp(const LabelledSteps& step, const std::string& op);

// The sites as the report's lines of an op that took `op_ms` a step in the windows: each site's
// part of the sites' labelled time, times op_ms (labelling slows the calls, not their proportions).
std::vector<OpLine> OpLines(const std::vector<OpSite>& sites, double op_ms);

// The line of the costliest site of `op` (SitesOfOp's first); nullopt where no line ran it.
std::optional<SourceLocation> LineOfOp(const LabelledSteps& step, const std::string& op);

}  // namespace advisor
