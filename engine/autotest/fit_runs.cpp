#include "engine/autotest/fit_runs.h"

#include <filesystem>
#include <string>

#include "engine/autotest/ab_stats.h"
#include "engine/autotest/applicability.h"
#include "engine/autotest/candidate_process.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"
#include "engine/util/scratch_paths.h"

namespace advisor {
namespace {

// What a candidate-only run says in place of a speedup.
constexpr char kNoBaseline[] =
    "no speedup: the run without the fix ran out of memory, so there is no baseline to compare "
    "with";

FixResult Skip(FixResult fix, const std::string& reason) {
  fix.status = fix_status::kSkipped;
  fix.detail = reason;
  return fix;
}

// The candidate's one run, settled as fits, out-of-memory or failed.
FixResult RunAlone(const CandidateSpec& candidate, const CandidateRunner& runner,
                   const AbSettings& settings, const std::string& scratch_dir,
                   AutotestBudget& budget) {
  FixResult fix = NewFixResult(candidate);
  fix.candidate_only = true;
  fix.measured_in = measured_in::kProcesses;  // its one process, whatever it did
  const auto start = AutotestBudget::Clock::now();
  const CandidateProcessRun run =
      RunCandidateProcess(runner, &candidate, settings,
                          (std::filesystem::path(scratch_dir) / (candidate.id + ".json")).string());
  budget.RecordRound(AutotestBudget::Clock::now() - start);
  if (!run.out_of_memory.empty()) {
    fix.status = fix_status::kOutOfMemory;
    fix.detail = "ran out of memory again " + run.out_of_memory;
  } else if (!run.failure.empty()) {
    fix.status = fix_status::kFailed;
    fix.detail = run.failure;
  } else if (!run.result.skipped.empty()) {
    return Skip(fix, run.result.skipped);
  } else if (!run.result.loss) {
    fix.status = fix_status::kFailed;
    fix.detail = "the loss was not finite";
  } else {
    fix.status = fix_status::kFits;
    fix.step_statistic = StepStatisticName(settings.statistic);
    fix.candidate = SummarizeSteps(run.result.step_ms);
    fix.peak_memory_mb = run.result.peak_memory_mb;
    fix.warmup_s = run.result.warmup_s;
    fix.sites = run.result.sites;
    fix.detail = kNoBaseline;
  }
  return fix;
}

// One progress line per candidate, as the A/B's verdicts are printed.
void Report(const FixResult& fix, std::ostream& progress) {
  progress << "[autotest] " << fix.recipe << ": " << fix.status;
  if (fix.status == fix_status::kFits) {
    progress << ", " << Printf("%.1f", ComparedStepMs(fix, fix.candidate)) << " ms/step";
    if (fix.peak_memory_mb) progress << Printf(", peak %.0f MB", *fix.peak_memory_mb);
  } else if (!fix.detail.empty()) {
    progress << ": " << PrintableLine(fix.detail.substr(0, fix.detail.find('\n')));
  }
  progress << "\n";
}

}  // namespace

std::vector<FixResult> RunFitCandidates(const AutotestPlan& plan, const CandidateRunner& runner,
                                        AutotestBudget& budget, std::ostream& progress) {
  const PrivateTempDir scratch("advisor-autotest-");
  std::vector<FixResult> fixes;
  for (const std::string& id : plan.recipe_ids) {
    const Recipe* recipe = FindRecipe(plan.recipes, id);
    FixResult fix;
    if (recipe == nullptr) {
      fix.recipe = id;
      fix = Skip(fix, "not applicable: no recipe \"" + id + "\" was loaded from recipes/");
    } else if (const std::string reason =
                   WhyNotApplicable(*recipe, plan.door, plan.device, plan.torch_version);
               !reason.empty()) {
      fix = Skip(NewFixResult(CombineRecipes({recipe})), reason);
    } else if (!budget.RoomForRound()) {
      fix = Skip(NewFixResult(CombineRecipes({recipe})),
                 "not tried: the autotest budget (" + budget.DescribeLimit() + ") was spent");
    } else {
      progress << "[autotest] " << id << ": running it alone (the run without it ran out of "
               << "memory)\n";
      fix = RunAlone(CombineRecipes({recipe}), runner, plan.settings, scratch.path(), budget);
    }
    Report(fix, progress);
    fixes.push_back(std::move(fix));
  }
  return fixes;
}

}  // namespace advisor
