#include "engine/autotest/candidate.h"

#include <algorithm>

namespace advisor {
namespace {

bool Lists(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The first field both set to different values, e.g. "overrides.batch_scale"; "" when none.
std::string ClashingField(const Recipe& a, const Recipe& b) {
  for (const auto& [name, value] : a.env) {
    const auto other = b.env.find(name);
    if (other != b.env.end() && other->second != value) return "env." + name;
  }
  std::string clash;
  ForEachOverrideField([&](const char* name, auto member) {
    const auto& mine = a.overrides.*member;
    const auto& theirs = b.overrides.*member;
    if (clash.empty() && mine && theirs && !(*mine == *theirs)) {
      clash = std::string("overrides.") + name;
    }
  });
  return clash;
}

}  // namespace

std::string FindConflict(const std::vector<const Recipe*>& recipes) {
  for (std::size_t i = 0; i < recipes.size(); ++i) {
    for (std::size_t j = i + 1; j < recipes.size(); ++j) {
      const Recipe& a = *recipes[i];
      const Recipe& b = *recipes[j];
      if (Lists(a.conflicts_with, b.id) || Lists(b.conflicts_with, a.id)) {
        return a.id + " and " + b.id + " are declared as conflicting";
      }
      const std::string field = ClashingField(a, b);
      if (!field.empty()) return a.id + " and " + b.id + " set " + field + " differently";
      // torch.compile in its default form and in a mode: the model is compiled one way.
      if (Compiles(a.overrides) && Compiles(b.overrides) &&
          a.overrides.compile_mode != b.overrides.compile_mode) {
        return a.id + " and " + b.id + " compile the model in two forms of torch.compile";
      }
    }
  }
  return {};
}

CandidateSpec CombineRecipes(const std::vector<const Recipe*>& recipes) {
  CandidateSpec spec;
  for (const Recipe* recipe : recipes) {
    spec.id += (spec.id.empty() ? "" : "+") + recipe->id;
    spec.recipe_ids.push_back(recipe->id);
    spec.preserves_semantics = spec.preserves_semantics && recipe->preserves_semantics;
    spec.tolerance = std::max(spec.tolerance, recipe->tolerance);
    for (const auto& [name, value] : recipe->env) spec.env[name] = value;
    ForEachOverrideField([&](const char*, auto member) {
      if ((recipe->overrides.*member).has_value()) {
        spec.overrides.*member = recipe->overrides.*member;
      }
    });
    if (!recipe->rewrite.empty() && !Lists(spec.rewrites, recipe->rewrite)) {
      spec.rewrites.push_back(recipe->rewrite);
    }
  }
  spec.kind = recipes.size() == 1 ? RecipeKindName(recipes.front()->kind) : "combination";
  return spec;
}

}  // namespace advisor
