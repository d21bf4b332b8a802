// `advisor bisect --autotest`: tries each recipe the findings named, alone and then the best
// combination of the ones that helped, and returns one result per candidate for the report.
// Everything that needs LibTorch (the worker, the numerics check) is plugged in by the caller.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/candidate.h"
#include "engine/autotest/recipe.h"
#include "engine/autotest/worker_command.h"
#include "engine/model/run_report.h"
#include "engine/model/finding.h"

namespace advisor {

// The verdict of the caller's numerics check on a semantics-preserving candidate: same seed and
// inputs, loss, outputs and parameter gradients compared with the candidate's tolerance class.
struct NumericsVerdict {
  enum class Outcome { kWithinTolerance, kExceeded, kError };
  Outcome outcome = Outcome::kError;
  Numerics numerics;   // the measured differences and the tolerance they were held to
  std::string detail;  // e.g. "grad of blocks.3.attn.qkv.weight differs by 2.1e-2 (tolerance 1e-3)"
  std::vector<MethodChange> code_changes;  // a rewrite's changed methods, for the report
};
using NumericsCheck = std::function<NumericsVerdict(const CandidateSpec& candidate)>;

struct AutotestPlan {
  std::vector<std::string> recipe_ids;  // each once, in the order to try: RecipeIdsFromFindings
  std::vector<Recipe> recipes;          // LoadRecipeDir(FindDataDir("recipes")).recipes
  Door door = Door::kModel;             // whose workers run: kModel, kScript or kRanks
  std::string device;                   // "cpu" or "cuda"
  std::string torch_version;            // the torch the worker runs, e.g. "2.11.0+cu130"
  WorkerCommandBuilder worker_command;  // e.g. AdvisorWorkerCommandBuilder(...)
  // Empty: semantics-preserving candidates are benchmarked and their detail says "numerics not
  // checked"; they are never called rejected without a measurement.
  NumericsCheck check_numerics;
  AbSettings settings;
  // The input stage's workers as the run had them (DataWait::workers) and the cores they can use:
  // with both, and another count than the workload's that fits the cores, a recipe that sets
  // dataloader_workers runs as a series of counts up to the cores
  // (engine/autotest/worker_series.h); otherwise as the recipe says.
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

// Runs the plan: every recipe once (skipped ones say why), then the combination if there is one,
// last. Worker result files go to a temporary folder removed afterwards. Throws std::runtime_error
// only when that folder cannot be created. `budget` was started by the caller when the autotest
// began (numerics checks count); a candidate it leaves no room for is skipped and says so.
std::vector<AbResult> RunAutotest(const AutotestPlan& plan, AutotestBudget& budget,
                                  std::ostream& progress);

}  // namespace advisor
