// Findings as advice for the run at hand: a fix the user's torch lacks is never the top advice,
// and says which torch it needs; findings of one rule about one module are one finding.
#pragma once

#include <string>
#include <vector>

#include "engine/autotest/recipe.h"
#include "engine/model/finding.h"
#include "engine/model/fixes.h"

namespace advisor {

// For each finding whose recipe needs a newer torch than `torch_version` (the recipe's
// `requires.torch`): sets needs_torch, lowers the severity to low and says so in the message.
// Nothing changes where the run's torch version is unknown (a trace that does not say).
void FitFindingsToTorch(std::vector<Finding>& findings, const std::vector<Recipe>& recipes,
                        const std::string& torch_version);

// Findings of the same rule about the same module become one: the highest severity, the largest
// expected gain, every distinct message and evidence joined, the first recipe. The first
// finding's place in the list is kept.
void MergeFindings(std::vector<Finding>& findings);

// After the autotest, what was measured leads what a rule estimated: within each finding its
// recipes are ordered by their verified speedup, fastest first (the others keep their order
// after them), and the findings with a verified fix come first, fastest fix first; the others keep
// their order after them. The report's first finding then offers the fix measured fastest.
void LeadWithMeasuredFixes(std::vector<Finding>& findings, const std::vector<FixResult>& fixes);

}  // namespace advisor
