#include "engine/model_candidate/prepared_candidate.h"

#include <algorithm>
#include <stdexcept>

#include "engine/autotest/applicability.h"
#include "engine/model_candidate/builtin_rewrites.h"
#include "engine/model_candidate/knobs.h"
#include "engine/torch/device_info.h"
#include "engine/torch/model_archive.h"
#include "engine/util/unified_diff.h"

namespace advisor {
namespace {

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// The load error of recipes/<id>.json, if the loader left that file out.
std::string LoadErrorOf(const RecipeSet& set, const std::string& id) {
  const std::string file = id + ".json";
  for (const std::string& error : set.errors) {
    if (error.find(file) != std::string::npos) return error;
  }
  return "";
}

}  // namespace

WorkerCandidate LoadCandidate(const std::vector<std::string>& ids, const std::string& recipes_dir,
                              const std::string& device) {
  const RecipeSet set = LoadRecipeDir(recipes_dir);
  std::vector<const Recipe*> recipes;
  WorkerCandidate candidate;
  for (const std::string& id : ids) {
    const Recipe* recipe = FindRecipe(set.recipes, id);
    if (recipe == nullptr) {
      const std::string error = LoadErrorOf(set, id);
      throw std::runtime_error(
          "--recipe: " + (error.empty() ? "no recipe \"" + id + "\" in " + recipes_dir : error));
    }
    recipes.push_back(recipe);
    const std::string reason = WhyNotApplicable(*recipe, Door::kModel, device, TorchVersion());
    if (candidate.skipped.empty() && !reason.empty()) candidate.skipped = reason;
  }
  if (recipes.empty()) throw std::runtime_error("--recipe: no recipe id given");
  const std::string conflict = FindConflict(recipes);
  if (!conflict.empty()) throw std::runtime_error("--recipe: " + conflict);
  candidate.spec = CombineRecipes(recipes);
  return candidate;
}

PreparedCandidate PrepareCandidate(const std::string& model_path, const WorkloadSpec& spec,
                                   const CandidateSpec* candidate, std::ostream& log) {
  PreparedCandidate prepared;
  prepared.spec = spec;
  if (candidate != nullptr) {
    prepared.skipped = WhyKnobsDoNotApply(candidate->overrides, spec);
    for (const std::string& rewrite : candidate->rewrites) {
      if (prepared.skipped.empty()) prepared.skipped = WhyRewriteUnavailable(rewrite);
    }
    if (!prepared.skipped.empty()) return prepared;
    prepared.spec = ApplySpecKnobs(spec, candidate->overrides);
  }
  prepared.module = LoadModule(model_path);
  if (candidate == nullptr) return prepared;

  ApplyModuleKnobs(prepared.module, prepared.spec, candidate->overrides);
  for (const std::string& name : candidate->rewrites) {
    const RewriteOutcome outcome = ApplyBuiltinRewrite(name, prepared.module, prepared.spec);
    if (outcome.sites == 0) {
      prepared.skipped = "not applicable: " + name + (outcome.why_no_site.empty()
                                                          ? " found no site in this model"
                                                          : ": " + outcome.why_no_site);
      return prepared;
    }
    log << "[worker] " << name << ": changed " << outcome.sites << " site(s) in "
        << Joined(outcome.module_paths) << "\n";
    for (const RewrittenMethod& method : outcome.methods) {
      prepared.code_changes.push_back(
          {method.module_type, method.method, UnifiedDiff(method.before, method.after)});
    }
    for (const std::string& path : outcome.module_paths) {
      if (std::find(prepared.sites.begin(), prepared.sites.end(), path) == prepared.sites.end()) {
        prepared.sites.push_back(path);
      }
    }
  }
  return prepared;
}

}  // namespace advisor
