#include "engine/cli/autotest_step.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "engine/autotest/advice_fit.h"
#include "engine/autotest/autotest.h"
#include "engine/autotest/candidate_order.h"
#include "engine/cli/model_candidate_runner.h"
#include "engine/script/code_change.h"
#include "engine/script/script_candidate.h"
#include "engine/util/data_dir.h"
#include "engine/util/duration.h"
#include "engine/util/physical_cores.h"

namespace advisor {
namespace {

// No std::filesystem here: PyTorch's wheels export a copy of it from libtorch.so, to which a
// program linking libtorch binds its calls; with the 2.11 wheel and g++ 13, remove_all() on a
// folder with a file in it crashed there.

// The advisor binary itself, to start candidate processes with; "" and `error` set when unreadable.
std::string OwnExecutable(std::string& error) {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length < 0) {
    error = std::strerror(errno);
    return "";
  }
  return std::string(path, static_cast<std::size_t>(length));
}

// What makes each candidate process run the workload as this bisect ran it.
std::vector<std::string> BisectArguments(const BisectCommandOptions& options) {
  const ModelOptions& bisect = options.model;
  std::vector<std::string> arguments{"--step-timeout",
                                     std::to_string(options.workload.step_timeout_s)};
  if (bisect.overrides.batch_size) {
    arguments.insert(arguments.end(),
                     {"--batch-size", std::to_string(*bisect.overrides.batch_size)});
  }
  if (bisect.overrides.deterministic) {
    arguments.push_back(*bisect.overrides.deterministic ? "--deterministic" : "--no-deterministic");
  }
  if (bisect.jit_optimize) arguments.push_back("--jit-optimize");
  return arguments;
}

// The autotest's runner for the door the report came through, made once here: the autotest
// itself never asks which door it drives. Throws std::runtime_error (one line) when the runner's
// private folder cannot be made or the advisor binary cannot be found.
std::unique_ptr<CandidateRunner> MakeCandidateRunner(const BisectCommandOptions& options,
                                                     const RunReport& report,
                                                     const AbSettings& settings,
                                                     const FixedModelsDir* fixed) {
  if (report.run.mode == Door::kScript) {
    ScriptCandidateOptions script;
    script.command = options.script.command;
    script.probe_dir = FindDataDir("probe");
    script.step_timeout = std::chrono::seconds(options.workload.step_timeout_s);
    return std::make_unique<ScriptCandidateRunner>(script, settings);
  }
  std::string error;
  AdvisorCandidateOptions model;
  model.advisor_path = OwnExecutable(error);
  if (model.advisor_path.empty()) {
    throw std::runtime_error("cannot find the advisor binary to start workers: " + error);
  }
  model.model = options.model.model_path;
  model.device = report.run.device;
  model.workload_arguments = BisectArguments(options);
  return std::make_unique<ModelCandidateRunner>(model, settings, fixed);
}

// A rewrite cannot be applied to a script, and a model's rewrite lives in the saved model only:
// where a finding that names the rewrite has its change to the user's code (SuggestFindingChanges),
// the fix says it. A script's fix needs it to apply at all; a model's, once verified, says it
// beside its result.
void SuggestCodeChanges(const std::vector<Recipe>& recipes, Door door, RunReport& report) {
  for (FixResult& fix : report.fixes) {
    const Recipe* recipe = FindRecipe(recipes, fix.recipe);
    if (recipe == nullptr || recipe->kind != RecipeKind::kRewrite) continue;
    if (door != Door::kScript && fix.status != fix_status::kVerified) continue;
    for (const Finding& finding : report.findings) {
      const std::vector<std::string> named = RecipesOf(finding);
      if (!finding.source || std::find(named.begin(), named.end(), fix.recipe) == named.end()) {
        continue;
      }
      if (const std::optional<CodeChange>& change = finding.change) {
        const std::string patch = Patch(finding.source->file, *change);
        if (door == Door::kScript) {
          fix.detail = "needs a change to the script's code: " + change->advice;
        } else if (patch.empty()) {
          fix.detail += (fix.detail.empty() ? "" : "; ") + ("in your code: " + change->advice);
        }
        fix.suggested_change = patch;
      }
      break;
    }
  }
}

// A recipe aimed at module instances (activation-checkpointing: an empty checkpoint_modules in
// its file) gets the instances its findings name.
void AimAtFindings(std::vector<Recipe>& recipes, const std::vector<Finding>& findings) {
  for (Recipe& recipe : recipes) {
    std::optional<std::vector<std::string>>& paths = recipe.overrides.checkpoint_modules;
    if (!paths || !paths->empty()) continue;
    for (const Finding& finding : findings) {
      const std::vector<std::string> named = RecipesOf(finding);
      if (!finding.path.empty() &&
          std::find(named.begin(), named.end(), recipe.id) != named.end() &&
          std::find(paths->begin(), paths->end(), finding.path) == paths->end()) {
        paths->push_back(finding.path);
      }
    }
  }
}

// The numerics checks and benchmarks of the recipes the findings name, into report.fixes.
void TryRecipes(const BisectCommandOptions& options, RunReport& report,
                const FixedModelsDir* fixed, std::ostream& progress) {
  // Started before the numerics checks, which count against it.
  AutotestBudget budget(options.autotest_budget.empty()
                            ? std::nullopt
                            : ParseDuration(options.autotest_budget));
  const std::string recipes_dir = FindDataDir("recipes");
  if (recipes_dir.empty()) {
    report.data_quality.push_back(
        "autotest: the recipes are missing beside the advisor binary "
        "(set ADVISOR_RECIPES_DIR); nothing was tried");
    return;
  }
  RecipeSet recipes = LoadRecipeDir(recipes_dir);
  for (const std::string& error : recipes.errors) {
    report.data_quality.push_back("recipe left out: " + error);
  }
  AutotestPlan plan;
  plan.recipe_ids = RecipeIdsFromFindings(report.findings);
  if (plan.recipe_ids.empty()) {
    progress << "[autotest] no finding names a recipe: nothing to try\n";
    return;
  }

  plan.predicted_gain_ms = PredictedGainsMs(report.findings);
  plan.recipes = std::move(recipes.recipes);
  AimAtFindings(plan.recipes, report.findings);
  // A launcher's ranks are a door of their own: each run relaunches the whole job, and the DDP
  // knobs apply there only.
  const bool ranks = report.distributed && report.distributed->ranks.size() > 1;
  plan.door = ranks ? Door::kRanks : report.run.mode;
  plan.device = report.run.device;
  plan.torch_version = report.run.torch_version;
  plan.settings.max_rounds = options.autotest_rounds;
  if (report.data) {
    // A workload that waits for its input stalls in bursts of its own (prefetched batches, a
    // DataLoader's restarts): its throughput is the mean step's.
    plan.settings.statistic = StepStatistic::kMean;
    plan.input_workers = report.data->workers;
    plan.cores = report.data->stage && report.data->stage->cores > 0 ? report.data->stage->cores
                                                                    : PhysicalCoreCount();
  }

  std::vector<AbResult> results;
  try {
    const std::unique_ptr<CandidateRunner> runner =
        MakeCandidateRunner(options, report, plan.settings, fixed);
    results = RunAutotest(plan, *runner, budget, progress);
  } catch (const std::runtime_error& failure) {  // no private folder, or no advisor binary
    report.data_quality.push_back(std::string("autotest: ") + failure.what());
    return;
  }
  // In the findings' order, not the order tried; the combinations, if any, last.
  for (const AbResult& result : results) report.fixes.push_back(result.fix);
  LeadWithMeasuredFixes(report.findings, report.fixes);
  SuggestCodeChanges(plan.recipes, report.run.mode, report);
}

}  // namespace

void RunAutotestStep(const BisectCommandOptions& options, RunReport& report,
                     FixedModelsDir* fixed) {
  std::ostream no_progress(nullptr);
  std::ostream& progress = options.quiet ? no_progress : std::cerr;
  TryRecipes(options, report, fixed, progress);
  if (fixed == nullptr) return;
  try {
    fixed->Publish(report);
    progress << "[autotest] --save-fixed: README.md and the verified rewrites' models are in "
             << fixed->path() << "\n";
  } catch (const std::runtime_error& failure) {
    report.data_quality.push_back(std::string("autotest: ") + failure.what());
  }
}

}  // namespace advisor
