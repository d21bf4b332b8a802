#include "engine/autotest/autotest.h"

#include <algorithm>
#include <functional>
#include <map>

#include "engine/autotest/applicability.h"
#include "engine/autotest/in_process_ab.h"
#include "engine/autotest/loader_workers_series.h"
#include "engine/util/printable_text.h"
#include "engine/util/scratch_paths.h"

namespace advisor {
namespace {

AbResult Skipped(FixResult fix, const std::string& reason, std::ostream& progress) {
  fix.status = fix_status::kSkipped;
  fix.detail = reason;
  progress << "[autotest] " << fix.recipe << ": skipped: " << PrintableLine(reason) << "\n";
  return AbResult{fix, {}, {}, {}};
}

// The door's numerics checks: each single recipe's runs before any benchmark (CheckSinglesFirst)
// and is kept by id, so that trying the recipe (or a series of its counts, which share its id)
// reuses it; a candidate not checked first (a combination) is checked when it is tried.
class NumericsChecks {
 public:
  explicit NumericsChecks(CandidateRunner& runner) : runner_(runner) {}

  // The verdict kept for the candidate's id, else a fresh check by the door.
  NumericsVerdict Check(const CandidateSpec& candidate) {
    const auto checked = first_.find(candidate.id);
    return checked != first_.end() ? checked->second : runner_.CheckNumerics(candidate);
  }

  void KeepFirst(const std::string& id, NumericsVerdict verdict) {
    first_.emplace(id, std::move(verdict));
  }

 private:
  CandidateRunner& runner_;
  std::map<std::string, NumericsVerdict> first_;  // by recipe id
};

// The numerics check of each single recipe that keeps the computation runs first, so that a
// recipe the door finds nothing to apply to (a rewrite without a site) is reported as skipped
// without a benchmark. Returns those skipped results by recipe id.
std::map<std::string, AbResult> CheckSinglesFirst(const AutotestPlan& plan,
                                                  const AutotestBudget& budget,
                                                  NumericsChecks& checks, std::ostream& progress) {
  std::map<std::string, AbResult> declined;
  for (const std::string& id : plan.recipe_ids) {
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    const bool check_first =
        recipe != nullptr && recipe->preserves_semantics && budget.RoomForRound() &&
        WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version).empty();
    if (!check_first) continue;
    const CandidateSpec candidate = CombineRecipes({recipe});
    progress << "[autotest] " << id << ": checking numerics\n";
    NumericsVerdict verdict = checks.Check(candidate);
    if (verdict.outcome == NumericsVerdict::Outcome::kDeclined) {
      declined.emplace(id, Skipped(NewFixResult(candidate), verdict.detail, progress));
    } else {
      checks.KeepFirst(id, std::move(verdict));
    }
  }
  return declined;
}

// A candidate whose numerics check did not pass: rejected when it exceeded its tolerance, failed
// when the check could not say.
AbResult NumericsRefused(const CandidateSpec& candidate, const NumericsVerdict& verdict,
                         std::ostream& progress) {
  AbResult ab{NewFixResult(candidate), {}, {}, {}};
  const bool exceeded = verdict.outcome == NumericsVerdict::Outcome::kExceeded;
  const bool declined = verdict.outcome == NumericsVerdict::Outcome::kDeclined;
  ab.fix.status = exceeded ? fix_status::kRejected : fix_status::kFailed;
  if (exceeded) ab.fix.numerics = verdict.numerics;
  ab.fix.detail = (exceeded ? "numerics outside tolerance: " : "numerics check failed: ") +
                  std::string(declined ? "the worker declined it: " : "") + verdict.detail;
  progress << "[autotest] " << candidate.id << ": " << ab.fix.status << ": "
           << PrintableLine(ab.fix.detail) << "\n";
  return ab;
}

// Numerics first: a candidate that computes something else is rejected without spending a
// benchmark on it. `measure` runs the benchmark, or hands over the one already run in blocks.
AbResult TryCandidate(const CandidateSpec& candidate, NumericsChecks& checks,
                      const std::function<AbResult()>& measure, std::ostream& progress) {
  std::optional<Numerics> numerics;
  std::vector<MethodChange> code_changes;
  bool unchecked = false;
  if (candidate.preserves_semantics) {
    NumericsVerdict verdict = checks.Check(candidate);
    switch (verdict.outcome) {
      case NumericsVerdict::Outcome::kWithinTolerance:
        numerics = verdict.numerics;
        code_changes = std::move(verdict.code_changes);
        progress << "[autotest] " << candidate.id << ": numerics within tolerance\n";
        break;
      case NumericsVerdict::Outcome::kNotChecked:
        unchecked = true;
        break;
      case NumericsVerdict::Outcome::kExceeded:
      case NumericsVerdict::Outcome::kError:
      case NumericsVerdict::Outcome::kDeclined:
        return NumericsRefused(candidate, verdict, progress);
    }
  }
  AbResult ab = measure();
  ab.fix.numerics = numerics;
  ab.fix.code_changes = std::move(code_changes);
  if (unchecked) {
    ab.fix.detail += std::string(ab.fix.detail.empty() ? "" : "; ") + "numerics not checked";
  }
  return ab;
}

// The candidate's A/B in rounds of processes, if the budget has room for one.
AbResult TryInProcesses(const CandidateSpec& candidate, const AutotestPlan& plan,
                        CandidateRunner& runner, NumericsChecks& checks,
                        const std::string& scratch_dir, AutotestBudget& budget, int rounds_queued,
                        std::ostream& progress) {
  if (!budget.RoomForRound()) {
    return Skipped(NewFixResult(candidate),
                   "not tried: the autotest budget (" + budget.DescribeLimit() + ") was spent",
                   progress);
  }
  return TryCandidate(
      candidate, checks,
      [&] {
        return RunAbBenchmark(candidate, runner, plan.settings, scratch_dir, budget,
                              rounds_queued, progress);
      },
      progress);
}

// Whether `candidate` is measured in blocks: its knobs switch between steps, and its numerics,
// checked first where it keeps the computation, did not refuse it.
bool MeasurableInBlocks(const CandidateSpec& candidate, NumericsChecks& checks) {
  if (!SwitchesBetweenSteps(candidate)) return false;
  if (!candidate.preserves_semantics) return true;
  const NumericsVerdict::Outcome outcome = checks.Check(candidate).outcome;
  return outcome == NumericsVerdict::Outcome::kWithinTolerance ||
         outcome == NumericsVerdict::Outcome::kNotChecked;
}

// The single recipes a running script can switch, measured together in one run of it where the
// door can (RunInProcessAb); the others, and any that run did not decide, go to processes.
std::map<std::string, AbResult> MeasureSinglesInBlocks(
    const AutotestPlan& plan, CandidateRunner& runner, NumericsChecks& checks,
    const std::map<std::string, AbResult>& declined, const AutotestBudget& budget,
    const std::string& scratch_dir, std::ostream& progress) {
  std::vector<CandidateSpec> candidates;
  for (const std::string& id : plan.recipe_ids) {
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    if (declined.count(id) || !recipe ||
        !WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version).empty()) {
      continue;
    }
    CandidateSpec candidate = CombineRecipes({recipe});
    if (MeasurableInBlocks(candidate, checks)) candidates.push_back(std::move(candidate));
  }
  if (candidates.empty() || !budget.RoomForRound()) return {};
  return RunInProcessAb(candidates, runner, plan.settings, BlockDesign{}, scratch_dir, progress)
      .decided;
}

// The combination, in blocks of one run where its knobs all switch between steps and the door
// can, else (or where that run did not decide it) in rounds of processes.
AbResult CombinationResult(const CandidateSpec& candidate, const AutotestPlan& plan,
                           CandidateRunner& runner, NumericsChecks& checks,
                           const std::string& scratch_dir, AutotestBudget& budget,
                           std::ostream& progress) {
  if (!SwitchesBetweenSteps(candidate) || !budget.RoomForRound()) {
    return TryInProcesses(candidate, plan, runner, checks, scratch_dir, budget, 0, progress);
  }
  return TryCandidate(
      candidate, checks,
      [&] {
        InProcessOutcome measured = RunInProcessAb({candidate}, runner, plan.settings,
                                                   BlockDesign{}, scratch_dir, progress);
        if (const auto decided = measured.decided.find(candidate.id);
            decided != measured.decided.end()) {
          return decided->second;
        }
        return RunAbBenchmark(candidate, runner, plan.settings, scratch_dir, budget, 0,
                              progress);
      },
      progress);
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

std::vector<AbResult> RunAutotest(const AutotestPlan& plan, CandidateRunner& runner,
                                  AutotestBudget& budget, std::ostream& progress) {
  NumericsChecks checks(runner);
  const std::map<std::string, AbResult> declined =
      CheckSinglesFirst(plan, budget, checks, progress);
  // The candidates' result files, in a private folder removed with everything in it, also when
  // advisor is interrupted.
  const PrivateTempDir scratch("advisor-autotest-");
  const std::map<std::string, AbResult> in_blocks =
      MeasureSinglesInBlocks(plan, runner, checks, declined, budget, scratch.path(), progress);
  std::vector<AbResult> results;
  // The rounds the candidates after the current one may take at most, the combination counted
  // as one, for the "time left" of the progress lines.
  int candidates_left = static_cast<int>(plan.recipe_ids.size() - declined.size()) + 1;
  for (const std::string& id : plan.recipe_ids) {
    if (const auto skipped = declined.find(id); skipped != declined.end()) {
      results.push_back(skipped->second);
      continue;
    }
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
    const std::string reason =
        WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version);
    if (!reason.empty()) {
      results.push_back(Skipped(NewFixResult(candidate), reason, progress));
      continue;
    }
    if (const auto measured = in_blocks.find(id); measured != in_blocks.end()) {
      results.push_back(
          TryCandidate(candidate, checks, [&] { return measured->second; }, progress));
      continue;
    }
    // A series needs another count than the workload's to fit the cores; without one the recipe
    // runs as written.
    if (recipe->overrides.dataloader_workers && plan.input_workers &&
        !LoaderWorkerCounts(*plan.input_workers, plan.cores).empty()) {
      results.push_back(RunLoaderWorkersSeries(
          *recipe, *plan.input_workers, plan.cores,
          [&](const CandidateSpec& count, int counts_left) {
            return TryInProcesses(count, plan, runner, checks, scratch.path(), budget,
                                  (candidates_left + counts_left) * plan.settings.max_rounds,
                                  progress);
          },
          progress));
      continue;
    }
    results.push_back(TryInProcesses(candidate, plan, runner, checks, scratch.path(), budget,
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
    results.push_back(CombinationResult(candidate, plan, runner, checks, scratch.path(), budget,
                                        progress));
  }
  return results;
}

}  // namespace advisor
