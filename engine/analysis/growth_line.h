// The line of the user's code whose allocations are kept from step to step (memory growth), read
// in labelled steps (engine/analysis/line_costs.h): each kept allocation belongs to the innermost
// line's range open on its thread when it was made.
#pragma once

#include <optional>

#include "engine/analysis/line_costs.h"
#include "engine/model/finding.h"

namespace advisor {

struct LineKeepingMemory {
  SourceLocation source;
  double mb_per_step = 0;  // its kept bytes over the labelled steps before the last
};

// The line keeping the most; none where nothing allocated inside a line was kept.
std::optional<LineKeepingMemory> LineKeepingTheMost(const LabelledSteps& labelled);

}  // namespace advisor
