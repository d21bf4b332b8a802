#include "engine/autotest/autotest.h"

#include <algorithm>

#include "engine/autotest/applicability.h"
#include "engine/autotest/worker_series.h"
#include "engine/util/scratch_paths.h"

namespace advisor {
namespace {

AbResult Skipped(FixResult fix, const std::string& reason, std::ostream& progress) {
  fix.status = fix_status::kSkipped;
  fix.detail = reason;
  progress << "[autotest] " << fix.recipe << ": skipped: " << reason << "\n";
  return AbResult{fix, {}, {}, {}};
}

// Numerics first: a candidate that computes something else is rejected without spending a
// benchmark on it.
AbResult TryCandidate(const CandidateSpec& candidate, const AutotestPlan& plan,
                      const std::string& scratch_dir, AutotestBudget& budget, int rounds_queued,
                      std::ostream& progress) {
  const std::string label = "[autotest] " + candidate.id + ": ";
  if (!budget.RoomForRound()) {
    return Skipped(NewFixResult(candidate),
                   "not tried: the autotest budget (" + budget.DescribeLimit() + ") was spent",
                   progress);
  }
  std::optional<Numerics> numerics;
  std::vector<MethodChange> code_changes;
  if (candidate.preserves_semantics && plan.check_numerics) {
    const NumericsVerdict verdict = plan.check_numerics(candidate);
    if (verdict.outcome != NumericsVerdict::Outcome::kWithinTolerance) {
      AbResult ab{NewFixResult(candidate), {}, {}, {}};
      const bool exceeded = verdict.outcome == NumericsVerdict::Outcome::kExceeded;
      ab.fix.status = exceeded ? fix_status::kRejected : fix_status::kFailed;
      if (exceeded) ab.fix.numerics = verdict.numerics;
      ab.fix.detail =
          (exceeded ? "numerics outside tolerance: " : "numerics check failed: ") + verdict.detail;
      progress << label << ab.fix.status << ": " << ab.fix.detail << "\n";
      return ab;
    }
    numerics = verdict.numerics;
    code_changes = verdict.code_changes;
    progress << label << "numerics within tolerance\n";
  }
  AbResult ab = RunAbBenchmark(candidate, plan.worker_command, plan.settings, scratch_dir, budget,
                               rounds_queued, progress);
  ab.fix.numerics = numerics;
  ab.fix.code_changes = std::move(code_changes);
  if (candidate.preserves_semantics && !plan.check_numerics) {
    ab.fix.detail += std::string(ab.fix.detail.empty() ? "" : "; ") + "numerics not checked";
  }
  return ab;
}

}  // namespace

std::vector<std::string> RecipeIdsFromFindings(const std::vector<Finding>& findings) {
  std::vector<std::string> ids;
  for (const Finding& finding : findings) {
    for (const std::string& recipe : RecipesOf(finding)) {
      if (std::find(ids.begin(), ids.end(), recipe) == ids.end()) ids.push_back(recipe);
    }
  }
  return ids;
}

std::vector<const Recipe*> ChooseCombination(const std::vector<AbResult>& singles,
                                             const std::vector<Recipe>& recipes) {
  std::vector<const AbResult*> helped;
  for (const AbResult& single : singles) {
    if (single.fix.status == fix_status::kVerified && FindRecipe(recipes, single.fix.recipe)) {
      helped.push_back(&single);
    }
  }
  std::stable_sort(helped.begin(), helped.end(), [](const AbResult* a, const AbResult* b) {
    return a->fix.speedup > b->fix.speedup;
  });
  std::vector<const Recipe*> chosen;
  for (const AbResult* single : helped) {
    chosen.push_back(FindRecipe(recipes, single->fix.recipe));
    if (!FindConflict(chosen).empty()) chosen.pop_back();
  }
  if (chosen.size() < 2) chosen.clear();
  return chosen;
}

std::vector<AbResult> RunAutotest(const AutotestPlan& plan, AutotestBudget& budget,
                                  std::ostream& progress) {
  // The workers' result files, in a private folder removed with everything in it, also when
  // advisor is interrupted.
  const PrivateTempDir scratch("advisor-autotest-");
  std::vector<AbResult> results;
  // The rounds the candidates after the current one may take at most, the combination counted
  // as one, for the "time left" of the progress lines.
  int candidates_left = static_cast<int>(plan.recipe_ids.size()) + 1;
  for (const std::string& id : plan.recipe_ids) {
    --candidates_left;
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    if (!recipe) {
      FixResult fix;
      fix.recipe = id;
      results.push_back(Skipped(
          fix, "not applicable: no recipe \"" + id + "\" was loaded from recipes/", progress));
      continue;
    }
    const CandidateSpec candidate = CombineRecipes({recipe});
    const std::string reason = WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version);
    if (!reason.empty()) {
      results.push_back(Skipped(NewFixResult(candidate), reason, progress));
      continue;
    }
    if (recipe->overrides.dataloader_workers && plan.input_workers && plan.cores > 0) {
      results.push_back(RunWorkerSeries(
          *recipe, *plan.input_workers, plan.cores,
          [&](const CandidateSpec& count, int counts_left) {
            return TryCandidate(count, plan, scratch.path(), budget,
                                (candidates_left + counts_left) * plan.settings.max_rounds,
                                progress);
          },
          progress));
      continue;
    }
    results.push_back(TryCandidate(candidate, plan, scratch.path(), budget,
                                   candidates_left * plan.settings.max_rounds, progress));
  }

  // A series' recipe joins the combination with its knee's count.
  std::vector<Recipe> tuned = plan.recipes;
  for (const AbResult& result : results) {
    if (!result.fix.knee_workers) continue;
    for (Recipe& recipe : tuned) {
      if (recipe.id == result.fix.recipe) {
        recipe.overrides.dataloader_workers = ThreadCount{*result.fix.knee_workers};
      }
    }
  }
  const std::vector<const Recipe*> combination = ChooseCombination(results, tuned);
  if (!combination.empty()) {
    const CandidateSpec candidate = CombineRecipes(combination);
    progress << "[autotest] combining " << candidate.id << "\n";
    results.push_back(TryCandidate(candidate, plan, scratch.path(), budget, 0, progress));
  }
  return results;
}

}  // namespace advisor
