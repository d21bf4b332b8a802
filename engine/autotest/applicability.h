// Whether a recipe can be tried on this run at all, decided before any worker starts, so that a
// skipped recipe says why instead of producing a measurement of something else.
#pragma once

#include <string>

#include "engine/autotest/recipe.h"

namespace advisor {

// "" when `recipe` can be tried through the front door `door` (kModel, kScript, or kRanks: a
// script under a launcher with several ranks, which also takes the script's recipes) on `device`
// ("cpu" or "cuda") with the torch `torch_version` (e.g. "2.11.0+cu130"); otherwise the reason,
// starting with "not implemented" for planned recipes and "not applicable" for the others.
std::string WhyNotApplicable(const Recipe& recipe, Door door, const std::string& device,
                             const std::string& torch_version);

// Compares the leading dotted numbers: VersionAtLeast("2.11.0+cu130", "2.1") is true. A version
// without a leading number satisfies no minimum.
bool VersionAtLeast(const std::string& version, const std::string& minimum);

}  // namespace advisor
