#include "engine/model/finding.h"

#include <algorithm>

namespace advisor {

void RankFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.needs_torch.empty() != b.needs_torch.empty()) return a.needs_torch.empty();
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.expected_gain_ms.has_value() != b.expected_gain_ms.has_value()) {
      return a.expected_gain_ms.has_value();
    }
    return a.expected_gain_ms.value_or(0) > b.expected_gain_ms.value_or(0);
  });
}

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
