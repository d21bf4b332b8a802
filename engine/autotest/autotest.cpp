#include "engine/autotest/autotest.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "engine/autotest/applicability.h"
#include "engine/autotest/candidate_order.h"
#include "engine/autotest/in_process_ab.h"
#include "engine/autotest/loader_workers_series.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"
#include "engine/util/scratch_paths.h"

namespace advisor {
namespace {

AbResult Skipped(FixResult fix, const std::string& reason, std::ostream& progress) {
  fix.status = fix_status::kSkipped;
  fix.detail = reason;
  progress << "[autotest] " << fix.recipe << ": skipped: " << PrintableLine(reason) << "\n";
  return AbResult{fix, {}, {}};
}

// The numerics verdicts by candidate id: those checked inside the run that measured the candidates
// in blocks, then the door's checks of the other single recipes before any benchmark
// (CheckSinglesFirst), kept so that trying the recipe (or a series of its counts, which share its
// id) reuses them; a candidate not checked before (a combination in processes) is checked when it
// is tried.
class NumericsChecks {
 public:
  explicit NumericsChecks(CandidateRunner& runner) : runner_(runner) {}

  // The verdict kept for the candidate's id, else a fresh check by the door.
  NumericsVerdict Check(const CandidateSpec& candidate) {
    const auto checked = first_.find(candidate.id);
    return checked != first_.end() ? checked->second : runner_.CheckNumerics(candidate);
  }

  void Keep(const std::string& id, NumericsVerdict verdict) {
    first_.emplace(id, std::move(verdict));
  }

  bool Has(const std::string& id) const { return first_.count(id) != 0; }

 private:
  CandidateRunner& runner_;
  std::map<std::string, NumericsVerdict> first_;  // by recipe id
};

// The numerics check of each single recipe that keeps the computation and was not checked inside
// the blocks' run runs before the benchmarks in processes, so that a recipe the door finds nothing
// to apply to (a rewrite without a site) is reported as skipped without a benchmark. Returns those
// skipped results by recipe id.
std::map<std::string, AbResult> CheckSinglesFirst(const std::vector<std::string>& order,
                                                  const AutotestPlan& plan,
                                                  const AutotestBudget& budget,
                                                  NumericsChecks& checks, std::ostream& progress) {
  std::map<std::string, AbResult> declined;
  for (const std::string& id : order) {
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    const bool check_first =
        recipe != nullptr && recipe->preserves_semantics && !checks.Has(id) &&
        budget.RoomForRound() &&
        WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version).empty();
    if (!check_first) continue;
    const CandidateSpec candidate = CombineRecipes({recipe});
    progress << "[autotest] " << id << ": checking numerics\n";
    NumericsVerdict verdict = checks.Check(candidate);
    if (verdict.outcome == NumericsVerdict::Outcome::kDeclined) {
      declined.emplace(id, Skipped(NewFixResult(candidate), verdict.detail, progress));
    } else {
      checks.Keep(id, std::move(verdict));
    }
  }
  return declined;
}

// A candidate whose numerics check did not pass: rejected when it exceeded its tolerance, failed
// when the check could not say.
AbResult NumericsRefused(const CandidateSpec& candidate, const NumericsVerdict& verdict,
                         std::ostream& progress) {
  AbResult ab{NewFixResult(candidate), {}, {}};
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
    const std::string bigger = budget.DescribeBudgetFor(plan.settings.max_rounds);
    return Skipped(NewFixResult(candidate),
                   "not tried: the autotest budget (" + budget.DescribeLimit() + ") was spent" +
                       (bigger.empty() ? "" : "; " + bigger),
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

// `candidates`, each SwitchesBetweenSteps, measured in blocks of one run of the script where the
// door can (RunInProcessAb), their numerics checked inside it: the results of those it decided or
// whose numerics it refused, by id; the others go to processes. Keeps the verdicts it reached.
// What a run of blocks decided, and what it cost.
struct BlocksMeasured {
  std::map<std::string, AbResult> results;  // by candidate id
  double wall_s = 0;                        // its first run's, 0 where none ran
  std::size_t candidates = 0;               // how many that run switched
};

BlocksMeasured MeasureInBlocks(const std::vector<CandidateSpec>& candidates,
                               const AutotestPlan& plan, CandidateRunner& runner,
                               NumericsChecks& checks, const AutotestBudget& budget,
                               const std::string& scratch_dir, std::ostream& progress) {
  const InProcessOutcome outcome = RunInProcessAb(candidates, runner, plan.settings, BlockDesign{},
                                                  budget, scratch_dir, progress);
  BlocksMeasured measured_in_blocks;
  measured_in_blocks.wall_s = outcome.wall_s;
  measured_in_blocks.candidates = candidates.size();
  std::map<std::string, AbResult>& results = measured_in_blocks.results;
  for (const CandidateSpec& candidate : candidates) {
    const auto verdict = outcome.numerics.find(candidate.id);
    if (verdict != outcome.numerics.end()) checks.Keep(candidate.id, verdict->second);
    if (const auto measured = outcome.decided.find(candidate.id);
        measured != outcome.decided.end()) {
      results.emplace(candidate.id,
                      TryCandidate(candidate, checks, [&] { return measured->second; }, progress));
    } else if (verdict != outcome.numerics.end() &&
               verdict->second.outcome != NumericsVerdict::Outcome::kWithinTolerance) {
      results.emplace(candidate.id, NumericsRefused(candidate, verdict->second, progress));
    }
  }
  return measured_in_blocks;
}

// The candidate of a recipe that applies to the plan's door, device and torch; none otherwise.
std::optional<CandidateSpec> ApplicableCandidate(const AutotestPlan& plan, const std::string& id) {
  const Recipe* recipe = FindRecipe(plan.recipes, id);
  if (!recipe || !WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version).empty()) {
    return std::nullopt;
  }
  return CombineRecipes({recipe});
}

// A recipe that compiles in one of torch.compile's costlier forms (compile_mode).
bool IsCompileMode(const AutotestPlan& plan, const std::string& id) {
  const Recipe* recipe = FindRecipe(plan.recipes, id);
  return recipe != nullptr && recipe->overrides.compile_mode.has_value();
}

// torch.compile in its default form and nothing else (torch-compile): the candidate whose verdict
// says whether its costlier modes are worth their compile.
bool CompilesPlainly(const Recipe& recipe) {
  int overrides = 0;
  ForEachOverrideField(
      [&](const char*, auto member) { overrides += (recipe.overrides.*member).has_value(); });
  return recipe.env.empty() && recipe.rewrite.empty() && overrides == 1 &&
         recipe.overrides.compile.value_or(false);
}

// Why the compile modes are not worth trying: plain torch.compile was rejected (its numerics, or
// slower than the baseline) or failed, and a mode compiles the same graphs for longer; "" where
// no such verdict stands (plain compile helped, changed nothing, or was not tried).
std::string PlainCompileRefused(const AutotestPlan& plan,
                                const std::map<std::string, AbResult>& singles) {
  for (const auto& [id, single] : singles) {
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    const std::string& status = single.fix.status;
    if (recipe && CompilesPlainly(*recipe) &&
        (status == fix_status::kRejected || status == fix_status::kFailed)) {
      return "not tried: " + id + " was " + status + " (" + single.fix.detail +
             "), and a mode compiles the same graphs for longer";
    }
  }
  return {};
}

// Whether plain torch.compile was measured in this autotest (whatever its verdict): the compile
// modes tried without it say so.
bool PlainCompileMeasured(const AutotestPlan& plan,
                          const std::map<std::string, AbResult>& singles) {
  return std::any_of(singles.begin(), singles.end(), [&](const auto& single) {
    const Recipe* recipe = FindRecipe(plan.recipes, single.first);
    return recipe && CompilesPlainly(*recipe) && single.second.fix.status != fix_status::kSkipped;
  });
}

// Why the compile modes' run of blocks is not started: it would not end within the budget, priced
// as the first run of blocks (its start-up and torch.compile's compile in it), or in proportion to
// its candidates where the modes are more. Each mode compiles for tens of seconds where a knob
// switches in one step (the seed ViT on an H200: the three modes' run took the budget's four
// minutes past their end, 2026-11-30). "" where it fits, or where no first run prices it.
std::string ModesRunDoesNotFit(const AutotestPlan& plan, const std::vector<std::string>& modes,
                               const BlocksMeasured& first, const AutotestBudget& budget) {
  std::size_t switched = 0;
  for (const std::string& id : modes) {
    const std::optional<CandidateSpec> candidate = ApplicableCandidate(plan, id);
    switched += candidate && SwitchesBetweenSteps(*candidate);
  }
  if (switched == 0 || first.wall_s <= 0 || first.candidates == 0) return {};
  const double price_s =
      first.wall_s * std::max(1.0, static_cast<double>(switched) / first.candidates);
  if (budget.RoomFor(std::chrono::duration_cast<AutotestBudget::Clock::duration>(
          std::chrono::duration<double>(price_s)))) {
    return {};
  }
  return Printf("not tried: a run of blocks for torch.compile's modes, priced at %.0f s as the "
                "first run of blocks, does not fit the autotest budget (",
                price_s) +
         budget.DescribeLimit() + ")";
}

// The worker counts a recipe that sets dataloader_workers runs as a series of, where the run says
// its worker count and another count fits the cores; empty otherwise (the recipe runs as written).
std::vector<int> SeriesCounts(const Recipe& recipe, const AutotestPlan& plan) {
  if (!recipe.overrides.dataloader_workers || !plan.input_workers) return {};
  return LoaderWorkerCounts(*plan.input_workers, plan.cores);
}

// plan.recipe_ids in the order to try them: `in_run` says which are measured in blocks.
std::vector<std::string> TryOrder(const AutotestPlan& plan,
                                  const std::function<bool(const std::string&)>& in_run) {
  std::vector<RecipeForecast> forecasts;
  for (const std::string& id : plan.recipe_ids) {
    RecipeForecast forecast;
    forecast.id = id;
    if (const auto gain = plan.predicted_gain_ms.find(id); gain != plan.predicted_gain_ms.end()) {
      forecast.gain_ms = gain->second;
    }
    forecast.in_run = in_run(id);
    forecast.compile_mode = IsCompileMode(plan, id);
    if (const Recipe* recipe = FindRecipe(plan.recipes, id)) {
      forecast.benchmarks = std::max<int>(1, static_cast<int>(SeriesCounts(*recipe, plan).size()));
    }
    forecasts.push_back(std::move(forecast));
  }
  return OrderByGainPerCost(std::move(forecasts));
}

// The single recipes a running script can switch, measured together in one run of it, first:
// they cost seconds of steps where a process costs its start-up, so a short budget reaches them
// before any other candidate's numerics runs or rounds. `order` puts the most promising first in
// the run's schedule, so that a script that ends early leaves out the least.
BlocksMeasured MeasureSinglesInBlocks(const std::vector<std::string>& order,
                                      const AutotestPlan& plan, CandidateRunner& runner,
                                      NumericsChecks& checks, const AutotestBudget& budget,
                                      const std::string& scratch_dir, std::ostream& progress) {
  std::vector<CandidateSpec> candidates;
  for (const std::string& id : order) {
    std::optional<CandidateSpec> candidate = ApplicableCandidate(plan, id);
    if (candidate && SwitchesBetweenSteps(*candidate)) candidates.push_back(std::move(*candidate));
  }
  if (candidates.empty() || !budget.RoomForRound()) return {};
  return MeasureInBlocks(candidates, plan, runner, checks, budget, scratch_dir, progress);
}

// The best combination of the single recipes measured in blocks, and its result where it has one.
struct InRunCombination {
  CandidateSpec candidate;
  // None where its run of blocks did not decide it: it is then measured in processes, last.
  std::optional<AbResult> result;
};

// The best combination of the singles measured in blocks (ChooseCombination), measured in blocks
// of a run of its own right after them, before any candidate in processes: its members all switch
// between steps, so it costs seconds of steps, and the budget the processes spend later cannot
// leave it out (the seed script's bf16 with TF32 on an H200, 2026-11-29, waited behind
// torch.compile's rounds and was left out, priced as rounds of processes). None when fewer than
// two of them helped.
std::optional<InRunCombination> CombineInBlocks(const std::vector<std::string>& order,
                                                const std::map<std::string, AbResult>& in_blocks,
                                                const AutotestPlan& plan, CandidateRunner& runner,
                                                NumericsChecks& checks,
                                                const AutotestBudget& budget,
                                                const std::string& scratch_dir,
                                                std::ostream& progress) {
  std::vector<AbResult> singles;
  for (const std::string& id : order) {
    if (const auto single = in_blocks.find(id); single != in_blocks.end()) {
      singles.push_back(single->second);
    }
  }
  const std::vector<const Recipe*> members = ChooseCombination(singles, plan.recipes);
  if (members.empty()) return std::nullopt;
  InRunCombination combination{CombineRecipes(members), std::nullopt};
  progress << "[autotest] combining " << combination.candidate.id << "\n";
  if (!budget.RoomForRound()) {
    combination.result =
        Skipped(NewFixResult(combination.candidate),
                "not tried: the autotest budget (" + budget.DescribeLimit() + ") was spent",
                progress);
    return combination;
  }
  const std::map<std::string, AbResult> measured =
      MeasureInBlocks({combination.candidate}, plan, runner, checks, budget, scratch_dir, progress)
          .results;
  if (const auto result = measured.find(combination.candidate.id); result != measured.end()) {
    combination.result = std::move(result->second);
  }
  return combination;
}

// A combination with a member measured in processes, in blocks of one run where its knobs all
// switch between steps and the door can (a switched member whose blocks' run failed), else (or
// where that run did not decide it) in rounds of processes.
AbResult CombinationResult(const CandidateSpec& candidate, const AutotestPlan& plan,
                           CandidateRunner& runner, NumericsChecks& checks,
                           const std::string& scratch_dir, AutotestBudget& budget,
                           std::ostream& progress) {
  if (SwitchesBetweenSteps(candidate) && budget.RoomForRound()) {
    std::map<std::string, AbResult> measured =
        MeasureInBlocks({candidate}, plan, runner, checks, budget, scratch_dir, progress).results;
    if (const auto result = measured.find(candidate.id); result != measured.end()) {
      return std::move(result->second);
    }
  }
  return TryInProcesses(candidate, plan, runner, checks, scratch_dir, budget, 0, progress);
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
  if (const std::string shared = runner.SharedByRuns(); !shared.empty()) {
    progress << "[autotest] " << shared << "\n";
  }
  NumericsChecks checks(runner);
  // The candidates' result files, in a private folder removed with everything in it, also when
  // advisor is interrupted.
  const PrivateTempDir scratch("advisor-autotest-");
  // The compile modes wait for every other single (TryOrder puts them last): they are tried only
  // where plain torch.compile's verdict leaves them worth their compile.
  std::vector<std::string> first_run;
  for (const std::string& id : TryOrder(plan, [&](const std::string& id) {
         const std::optional<CandidateSpec> candidate = ApplicableCandidate(plan, id);
         return candidate && SwitchesBetweenSteps(*candidate);
       })) {
    if (!IsCompileMode(plan, id)) first_run.push_back(id);
  }
  const BlocksMeasured first_blocks = MeasureSinglesInBlocks(first_run, plan, runner, checks,
                                                             budget, scratch.path(), progress);
  std::map<std::string, AbResult> in_blocks = first_blocks.results;
  const std::vector<std::string> order =
      TryOrder(plan, [&](const std::string& id) { return in_blocks.count(id) != 0; });
  std::vector<std::string> others;
  std::vector<std::string> modes;
  for (const std::string& id : order) (IsCompileMode(plan, id) ? modes : others).push_back(id);
  std::optional<InRunCombination> in_run_combination =
      CombineInBlocks(others, in_blocks, plan, runner, checks, budget, scratch.path(), progress);
  const std::map<std::string, AbResult> declined =
      CheckSinglesFirst(others, plan, budget, checks, progress);
  std::map<std::string, AbResult> singles;  // by recipe id
  // The rounds the candidates after the current one may take at most, the combination counted
  // as one, for the "time left" of the progress lines.
  int candidates_left = static_cast<int>(plan.recipe_ids.size() - declined.size()) + 1;
  const auto try_single = [&](const std::string& id) {
    if (const auto skipped = declined.find(id); skipped != declined.end()) {
      singles.emplace(id, skipped->second);
      return;
    }
    --candidates_left;
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    if (!recipe) {
      FixResult fix;
      fix.recipe = id;
      singles.emplace(id, Skipped(fix, "not applicable: no recipe \"" + id +
                                           "\" was loaded from recipes/",
                                  progress));
      return;
    }
    const CandidateSpec candidate = CombineRecipes({recipe});
    const std::string reason =
        WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version);
    if (!reason.empty()) {
      singles.emplace(id, Skipped(NewFixResult(candidate), reason, progress));
      return;
    }
    if (const auto measured = in_blocks.find(id); measured != in_blocks.end()) {
      singles.emplace(id, measured->second);
      return;
    }
    if (!SeriesCounts(*recipe, plan).empty()) {
      singles.emplace(
          id, RunLoaderWorkersSeries(
                  *recipe, *plan.input_workers, plan.cores,
                  [&](const CandidateSpec& count, int counts_left) {
                    return TryInProcesses(
                        count, plan, runner, checks, scratch.path(), budget,
                        (candidates_left + counts_left) * plan.settings.max_rounds, progress);
                  },
                  progress));
      return;
    }
    singles.emplace(id, TryInProcesses(candidate, plan, runner, checks, scratch.path(), budget,
                                       candidates_left * plan.settings.max_rounds, progress));
  };
  for (const std::string& id : others) try_single(id);
  if (!modes.empty()) {
    std::string refused = PlainCompileRefused(plan, singles);
    if (refused.empty()) refused = ModesRunDoesNotFit(plan, modes, first_blocks, budget);
    const bool plain_measured = PlainCompileMeasured(plan, singles);
    if (refused.empty()) {
      if (!plain_measured) {
        progress << "[autotest] torch.compile's modes tried without plain torch.compile's "
                    "verdict: none was measured in this autotest\n";
      }
      // The modes a running script can switch, in a run of blocks of their own.
      in_blocks.merge(MeasureSinglesInBlocks(modes, plan, runner, checks, budget, scratch.path(),
                                             progress)
                          .results);
    }
    for (const std::string& id : modes) {
      const Recipe* recipe = FindRecipe(plan.recipes, id);
      if (!refused.empty() && recipe &&
          WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version).empty()) {
        --candidates_left;
        singles.emplace(id, Skipped(NewFixResult(CombineRecipes({recipe})), refused, progress));
        continue;
      }
      try_single(id);
      AbResult& tried = singles.at(id);
      if (!plain_measured && tried.fix.status != fix_status::kSkipped) {
        tried.fix.detail += std::string(tried.fix.detail.empty() ? "" : "; ") +
                            "tried without plain torch.compile's verdict (none in this autotest)";
      }
    }
  }
  std::vector<AbResult> results;
  for (const std::string& id : plan.recipe_ids) results.push_back(std::move(singles.at(id)));

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
  // The best combination of all the singles: where a recipe measured in processes joins the
  // switched ones (a DataLoader's workers with them), a second combination, which needs processes.
  const std::vector<const Recipe*> combination = ChooseCombination(results, tuned);
  if (in_run_combination) {
    results.push_back(in_run_combination->result
                          ? std::move(*in_run_combination->result)
                          : TryInProcesses(in_run_combination->candidate, plan, runner, checks,
                                           scratch.path(), budget, 0, progress));
  }
  if (!combination.empty()) {
    const CandidateSpec candidate = CombineRecipes(combination);
    if (!in_run_combination || candidate.id != in_run_combination->candidate.id) {
      progress << "[autotest] combining " << candidate.id << "\n";
      results.push_back(CombinationResult(candidate, plan, runner, checks, scratch.path(), budget,
                                          progress));
    }
  }
  return results;
}

}  // namespace advisor
