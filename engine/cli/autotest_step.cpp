#include "engine/cli/autotest_step.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <optional>

#include "engine/autotest/applicability.h"
#include "engine/autotest/autotest.h"
#include "engine/autotest/process.h"
#include "engine/autotest/worker_result.h"
#include "engine/script/code_change.h"
#include "engine/script/script_worker.h"
#include "engine/util/data_dir.h"
#include "engine/util/duration.h"
#include "engine/util/physical_cores.h"
#include "engine/util/scratch_paths.h"

namespace advisor {
namespace {

// No std::filesystem here: PyTorch's wheels export a copy of it from libtorch.so, to which a
// program linking libtorch binds its calls; with the 2.11 wheel and g++ 13, remove_all() on a
// folder with a file in it crashed there.

// The advisor binary itself, to start workers with; "" and `error` set when unreadable.
std::string OwnExecutable(std::string& error) {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length < 0) {
    error = std::strerror(errno);
    return "";
  }
  return std::string(path, static_cast<std::size_t>(length));
}

// What makes each worker run the workload as this bisect ran it.
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

WorkerCommandBuilder WorkerCommands(const BisectCommandOptions& options, const RunReport& report,
                                    const std::string& advisor_path) {
  AdvisorWorkerOptions worker;
  worker.advisor_path = advisor_path;
  worker.model = options.model.model_path;
  worker.device = report.run.device;
  const WorkerCommandBuilder contract = AdvisorWorkerCommandBuilder(worker);
  const std::vector<std::string> extra = BisectArguments(options);
  return [contract, extra](const CandidateSpec* candidate, const std::string& result_path) {
    WorkerCommand command = contract(candidate, result_path);
    command.argv.insert(command.argv.end(), extra.begin(), extra.end());
    return command;
  };
}

// The numerics check as `advisor worker ... --numerics`, in a process of its own like every run.
// Its result files go to a private folder (predictable names in a shared one could be taken).
// With `fixed`, each rewrite's worker also saves the model it checked (FixedModelsDir).
class NumericsRunner {
 public:
  // Throws std::runtime_error when the private folder cannot be made.
  NumericsRunner(WorkerCommandBuilder commands, AbSettings settings, const FixedModelsDir* fixed)
      : commands_(std::move(commands)),
        settings_(settings),
        fixed_(fixed),
        scratch_("advisor-numerics-") {}

  // Sets `declined` to the worker's reason when it does not apply the candidate to this model
  // (the verdict is then an error: nothing was compared).
  NumericsVerdict Check(const CandidateSpec& candidate, std::string& declined) {
    const std::string result_path =
        scratch_.path() + "/numerics-" + std::to_string(checks_++) + ".json";
    WorkerCommand command = commands_(&candidate, result_path);
    command.argv.push_back("--numerics");
    if (fixed_ != nullptr && !candidate.rewrites.empty()) {
      command.argv.insert(command.argv.end(), {"--save-fixed", fixed_->StagedModel(candidate.id)});
    }
    ProcessSpec spec;
    spec.argv = command.argv;
    spec.env = command.env;
    for (const auto& [name, value] : candidate.env) spec.env[name] = value;
    spec.timeout = settings_.worker_timeout;
    spec.stderr_tail_bytes = settings_.stderr_tail_bytes;
    const ProcessOutcome outcome = RunProcess(spec);

    NumericsVerdict verdict;
    if (!outcome.Succeeded()) {
      verdict.detail = "the numerics worker " + outcome.Describe();
      if (!outcome.stderr_tail.empty()) verdict.detail += "; stderr tail:\n" + outcome.stderr_tail;
    } else {
      try {
        const NumericsResult result = ReadNumericsResult(result_path);
        if (!result.skipped.empty()) {
          declined = result.skipped;
          verdict.detail = result.skipped;
        } else {
          verdict.outcome = result.within_tolerance ? NumericsVerdict::Outcome::kWithinTolerance
                                                    : NumericsVerdict::Outcome::kExceeded;
          verdict.numerics = result.numerics;
          verdict.detail = result.worst;
          verdict.code_changes = result.code_changes;
        }
      } catch (const WorkerResultError& error) {
        verdict.detail = error.what();
      }
    }
    std::remove(result_path.c_str());
    return verdict;
  }

 private:
  WorkerCommandBuilder commands_;
  AbSettings settings_;
  const FixedModelsDir* fixed_;
  PrivateTempDir scratch_;
  int checks_ = 0;
};


// What the autotest runs for one front door: the workers' command and the numerics check.
// `check` sets `declined` to the worker's reason when the candidate does not apply to this model.
struct Workers {
  WorkerCommandBuilder command;
  std::function<NumericsVerdict(const CandidateSpec&, std::string& declined)> check;
};

// A rewrite cannot be applied to a script, and a model's rewrite lives in the saved model only:
// where a finding that names the rewrite knows its line in the user's code, the fix says what to
// change there. A script's fix needs it to apply at all; a model's, once verified, says it beside
// its result.
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
      if (auto change = SuggestCodeChange(fix.recipe, *finding.source)) {
        if (door == Door::kScript) {
          fix.detail = "needs a change to the script's code: " + change->advice;
        } else if (change->patch.empty()) {
          fix.detail += (fix.detail.empty() ? "" : "; ") + ("in your code: " + change->advice);
        }
        fix.suggested_change = change->patch;
      }
      break;
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
  const std::vector<std::string> ids = RecipeIdsFromFindings(report.findings);
  if (ids.empty()) {
    progress << "[autotest] no finding names a recipe: nothing to try\n";
    return;
  }

  AutotestPlan plan;
  plan.recipes = std::move(recipes.recipes);
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

  Workers workers;
  std::optional<PrivateTempDir> script_scratch;
  std::optional<ScriptNumerics> script_numerics;
  std::optional<NumericsRunner> model_numerics;
  try {
    if (report.run.mode == Door::kScript) {
      ScriptWorkerOptions script;
      script.command = options.script.command;
      script.probe_dir = FindDataDir("probe");
      workers.command = ScriptWorkerCommandBuilder(script);
      script_scratch.emplace("advisor-script-numerics-");
      script_numerics.emplace(script, plan.settings, script_scratch->path());
      workers.check = [&](const CandidateSpec& candidate, std::string&) {
        return script_numerics->Check(candidate);
      };
    } else {
      std::string error;
      const std::string advisor_path = OwnExecutable(error);
      if (advisor_path.empty()) {
        report.data_quality.push_back(
            "autotest: cannot find the advisor binary to start workers: " + error);
        return;
      }
      workers.command = WorkerCommands(options, report, advisor_path);
      model_numerics.emplace(workers.command, plan.settings, fixed);
      workers.check = [&](const CandidateSpec& candidate, std::string& declined) {
        return model_numerics->Check(candidate, declined);
      };
    }
  } catch (const std::runtime_error& failure) {  // a private scratch folder could not be made
    report.data_quality.push_back(std::string("autotest: ") + failure.what());
    return;
  }
  plan.worker_command = workers.command;

  // The numerics check of each single recipe that keeps the computation runs first, so that a
  // recipe the worker finds nothing to apply to (a rewrite without a site) is reported as skipped
  // without a benchmark.
  std::map<std::string, NumericsVerdict> verdicts;  // by recipe id
  std::map<std::string, FixResult> declined;        // by recipe id
  for (const std::string& id : ids) {
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    const bool check_first =
        recipe != nullptr && recipe->preserves_semantics && budget.RoomForRound() &&
        WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version).empty();
    if (check_first) {
      const CandidateSpec candidate = CombineRecipes({recipe});
      progress << "[autotest] " << id << ": checking numerics\n";
      std::string reason;
      const NumericsVerdict verdict = workers.check(candidate, reason);
      if (!reason.empty()) {
        FixResult fix = NewFixResult(candidate);
        fix.status = fix_status::kSkipped;
        fix.detail = reason;
        progress << "[autotest] " << id << ": skipped: " << reason << "\n";
        declined.emplace(id, fix);
        continue;
      }
      verdicts.emplace(id, verdict);
    }
    plan.recipe_ids.push_back(id);
  }
  plan.check_numerics = [&](const CandidateSpec& candidate) {
    const auto checked = verdicts.find(candidate.id);
    if (checked != verdicts.end()) return checked->second;
    std::string reason;
    NumericsVerdict verdict = workers.check(candidate, reason);
    if (!reason.empty()) verdict.detail = "the worker declined it: " + reason;
    return verdict;
  };

  std::vector<AbResult> results;
  try {
    results = RunAutotest(plan, budget, progress);
  } catch (const std::runtime_error& failure) {
    report.data_quality.push_back(std::string("autotest: ") + failure.what());
    return;
  }
  // In the findings' order; the combination, if any, last.
  std::size_t next = 0;
  for (const std::string& id : ids) {
    const auto skipped = declined.find(id);
    if (skipped != declined.end()) {
      report.fixes.push_back(skipped->second);
    } else if (next < results.size()) {
      report.fixes.push_back(results[next++].fix);
    }
  }
  for (; next < results.size(); ++next) report.fixes.push_back(results[next].fix);
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
