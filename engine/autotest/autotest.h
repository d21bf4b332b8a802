// `advisor bisect --autotest`: tries each recipe the findings named, alone and then the best
// combination of the ones that helped, and returns one result per candidate for the report.
// It runs them through the door's CandidateRunner, which the caller makes.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/candidate.h"
#include "engine/autotest/candidate_runner.h"
#include "engine/autotest/recipe.h"
#include "engine/model/finding.h"
#include "engine/model/run_report.h"

namespace advisor {

struct AutotestPlan {
  std::vector<std::string> recipe_ids;  // each once, in the findings' order: RecipeIdsFromFindings
  std::vector<Recipe> recipes;          // LoadRecipeDir(FindDataDir("recipes")).recipes
  Door door = Door::kModel;             // what the recipes must apply to: kModel, kScript or kRanks
  std::string device;                   // "cpu" or "cuda"
  std::string torch_version;            // the torch the candidates run, e.g. "2.11.0+cu130"
  AbSettings settings;
  // By recipe id, the time per step its findings predict it saves (PredictedGainsMs): the order
  // the recipes are tried in (OrderByGainPerCost), which the results do not follow.
  std::map<std::string, double> predicted_gain_ms;
  // The input stage's workers as the run had them (DataWait::workers) and the cores they can use:
  // with both, and another count than the workload's that fits the cores, a recipe that sets
  // dataloader_workers runs as a series of counts up to the cores
  // (engine/autotest/loader_workers_series.h); otherwise as the recipe says.
  std::optional<int> input_workers;
  int cores = 0;
};

// The recipes the findings name, in the order of the findings, each once.
std::vector<std::string> RecipeIdsFromFindings(const std::vector<Finding>& findings);

// The members of the combination to try after the single recipes: the verified singles (faster
// than the baseline), fastest first, each kept if it conflicts with none kept before (a
// greedy choice, not a search of all subsets). Empty when fewer than two qualify.
std::vector<const Recipe*> ChooseCombination(const std::vector<AbResult>& singles,
                                             const std::vector<Recipe>& recipes);

// Runs the plan through `runner`, trying the recipes in the order of their predicted gain per
// second of measurement (engine/autotest/candidate_order.h): first the single recipes whose knobs
// a running script can switch, measured in blocks of one run of it where the door can, their
// numerics checked inside that run, and right after them the best combination of those that
// helped, in blocks of a run of its own; then the numerics check of each other single recipe that
// keeps the computation (one the door declines is skipped with its reason); then every other
// recipe once (skipped ones say why; a semantics-preserving one is benchmarked only once its
// numerics passed); then torch.compile's modes (compile_mode), in blocks of a run of their own
// where the door can, unless plain torch.compile was rejected or failed, which skips them with
// its verdict; last, where a recipe measured in processes joins the best combination, that
// combination in processes, if the budget has room. Results are in plan.recipe_ids' order, the
// combinations after them. Candidate result files go to a temporary folder removed afterwards.
// Throws std::runtime_error only when that folder cannot be created. `budget` was started by the
// caller when the autotest began (numerics checks count); a candidate it leaves no room for is
// skipped and says so.
std::vector<AbResult> RunAutotest(const AutotestPlan& plan, CandidateRunner& runner,
                                  AutotestBudget& budget, std::ostream& progress);

}  // namespace advisor
