#include "engine/autotest/advice_fit.h"

#include <algorithm>
#include <map>
#include <utility>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/applicability.h"

namespace advisor {
namespace {

// Appends `part` to `text` with `separator` unless `text` already holds it.
void JoinDistinct(std::string& text, const std::string& part, const char* separator) {
  if (part.empty() || text.find(part) != std::string::npos) return;
  text += text.empty() ? part : separator + part;
}

}  // namespace

void FitFindingsToTorch(std::vector<Finding>& findings, const std::vector<Recipe>& recipes,
                        const std::string& torch_version) {
  if (torch_version.empty()) return;
  for (Finding& finding : findings) {
    const Recipe* recipe = FindRecipe(recipes, finding.recipe);
    if (recipe == nullptr || recipe->min_torch_version.empty() ||
        VersionAtLeast(torch_version, recipe->min_torch_version)) {
      continue;
    }
    finding.needs_torch = recipe->min_torch_version;
    finding.severity = Severity::kLow;
    finding.message += " Its fix (the recipe " + recipe->id + ") needs torch " +
                       recipe->min_torch_version + " or newer; this run has " + torch_version +
                       ".";
  }
}

void MergeFindings(std::vector<Finding>& findings) {
  std::vector<Finding> merged;
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (rule, path) -> merged
  for (Finding& finding : findings) {
    const auto [it, inserted] = index.emplace(std::make_pair(finding.rule, finding.path),
                                              merged.size());
    if (inserted) {
      merged.push_back(std::move(finding));
      continue;
    }
    Finding& into = merged[it->second];
    into.severity = std::max(into.severity, finding.severity);
    if (finding.expected_gain_ms &&
        (!into.expected_gain_ms || *finding.expected_gain_ms > *into.expected_gain_ms)) {
      into.expected_gain_ms = finding.expected_gain_ms;
    }
    JoinDistinct(into.message, finding.message, " ");
    JoinDistinct(into.evidence, finding.evidence, "; ");
    // Every recipe stays: each is a fix the autotester can measure.
    const std::vector<std::string> named = RecipesOf(into);
    if (into.recipe.empty()) {
      into.recipe = finding.recipe;
    } else if (!finding.recipe.empty() &&
               std::find(named.begin(), named.end(), finding.recipe) == named.end()) {
      into.also_recipes.push_back(finding.recipe);
    }
    // Checked per finding before merging (FitFindingsToTorch): the merged advice fits the run
    // when any part of it does.
    if (finding.needs_torch.empty()) into.needs_torch.clear();
    if (into.op.empty()) into.op = finding.op;
  }
  findings = std::move(merged);
}

namespace {

// The verified speedup of `recipe`'s single fix; 0 where it was not verified.
double VerifiedSpeedup(const std::vector<FixResult>& fixes, const std::string& recipe) {
  for (const FixResult& fix : fixes) {
    if (fix.recipe == recipe && fix.status == fix_status::kVerified) return fix.speedup;
  }
  return 0;
}

}  // namespace

void LeadWithMeasuredFixes(std::vector<Finding>& findings, const std::vector<FixResult>& fixes) {
  std::vector<double> best(findings.size(), 0);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    std::vector<std::string> recipes = RecipesOf(findings[i]);
    if (recipes.empty()) continue;
    std::stable_sort(recipes.begin(), recipes.end(),
                     [&](const std::string& a, const std::string& b) {
                       return VerifiedSpeedup(fixes, a) > VerifiedSpeedup(fixes, b);
                     });
    findings[i].recipe = recipes.front();
    findings[i].also_recipes.assign(recipes.begin() + 1, recipes.end());
    best[i] = VerifiedSpeedup(fixes, recipes.front());
  }
  std::vector<std::size_t> order(findings.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return best[a] > best[b]; });
  std::vector<Finding> ranked;
  for (std::size_t i : order) ranked.push_back(std::move(findings[i]));
  findings = std::move(ranked);
}

}  // namespace advisor
