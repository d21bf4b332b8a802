#include "engine/autotest/candidate_order.h"

#include <algorithm>

namespace advisor {

std::map<std::string, double> PredictedGainsMs(const std::vector<Finding>& findings) {
  std::map<std::string, double> gains;
  for (const Finding& finding : findings) {
    if (!finding.expected_gain_ms) continue;  // finite and >= 0: the rules' reader checked it
    for (const std::string& recipe : RecipesOf(finding)) {
      const auto [known, inserted] = gains.emplace(recipe, *finding.expected_gain_ms);
      if (!inserted) known->second = std::max(known->second, *finding.expected_gain_ms);
    }
  }
  return gains;
}

std::vector<std::string> OrderByGainPerCost(std::vector<RecipeForecast> forecasts) {
  std::stable_sort(
      forecasts.begin(), forecasts.end(), [](const RecipeForecast& a, const RecipeForecast& b) {
        if (a.compile_mode != b.compile_mode) return b.compile_mode;
        if (a.in_run != b.in_run) return a.in_run;
        if (a.gain_ms.has_value() != b.gain_ms.has_value()) {
          return a.gain_ms.has_value();
        }
        if (!a.gain_ms) return false;
        return *a.gain_ms / std::max(a.benchmarks, 1) > *b.gain_ms / std::max(b.benchmarks, 1);
      });
  std::vector<std::string> ids;
  ids.reserve(forecasts.size());
  for (RecipeForecast& forecast : forecasts) ids.push_back(std::move(forecast.id));
  return ids;
}

}  // namespace advisor
