#include "engine/model/finding.h"

namespace advisor {

std::vector<std::string> RecipesOf(const Finding& finding) {
  std::vector<std::string> recipes;
  if (!finding.recipe.empty()) recipes.push_back(finding.recipe);
  recipes.insert(recipes.end(), finding.also_recipes.begin(), finding.also_recipes.end());
  return recipes;
}

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kHigh: return "high";
    case Severity::kMedium: return "medium";
    case Severity::kLow: return "low";
  }
  return "low";
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (Severity severity : {Severity::kHigh, Severity::kMedium, Severity::kLow}) {
    if (name == SeverityName(severity)) return severity;
  }
  return std::nullopt;
}

}  // namespace advisor
