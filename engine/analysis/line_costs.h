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

// One line in labelled steps: each number the median of the steps'.
struct LineCost {
  SourceLocation source;
  double runs = 0;         // its ranges: the times it ran
  double ops = 0;          // the outermost ATen ops that ran in it (not in a line it called)
  double op_ms = 0;        // those ops' host time
  double own_ms = 0;       // its ranges' time less the labelled lines' inside them
  double backward_ms = 0;  // the backward nodes its ops made (by sequence number)
  double ms() const { return own_ms + backward_ms; }
};

// Every labelled line, heaviest (ms()) first.
std::vector<LineCost> CostsByLine(const LabelledSteps& step);

// The lines of a scope that took `scope_ms` of a `step_ms` step in the windows: each line's
// part of the labelled steps' lines' time, times scope_ms (labelling slows the lines, not their
// proportions), heaviest first; at most kMaxScopeLines, each at least kMinLineShare of the step.
inline constexpr std::size_t kMaxScopeLines = 8;
inline constexpr double kMinLineShare = 0.01;
std::vector<SourceLine> ScopeLines(const LabelledSteps& step, double scope_ms, double step_ms);

// The line of the first call that ran `op`: the innermost label around it.
std::optional<SourceLocation> LineOfOp(const LabelledSteps& step, const std::string& op);

}  // namespace advisor
