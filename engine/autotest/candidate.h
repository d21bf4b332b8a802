// What one A/B benchmark compares against the baseline: a single recipe, or a combination of
// compatible recipes merged into one set of environment variables, overrides and rewrites. The
// autotester builds it; the worker rebuilds the same spec from the recipe ids it is given.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/autotest/recipe.h"

namespace advisor {

struct CandidateSpec {
  std::string id;                       // "tf32-matmul", or "a+b" for a combination
  std::vector<std::string> recipe_ids;  // in the order given
  std::string kind;                     // "knob" or "rewrite"; "combination" for several recipes
  bool preserves_semantics = true;      // every member preserves the computation
  ToleranceClass tolerance = ToleranceClass::kReordering;  // the loosest member's
  std::map<std::string, std::string> env;
  RecipeOverrides overrides;
  std::vector<std::string> rewrites;  // applied in this order
};

// Why these recipes cannot be combined, naming the pair and the reason; "" when they can. They
// conflict when either one lists the other in conflicts_with, or when both set the same
// environment variable or override to different values, or compile the model in two forms of
// torch.compile (its default and a compile_mode).
std::string FindConflict(const std::vector<const Recipe*>& recipes);

// Merges non-empty `recipes` into one candidate. Call FindConflict first: where two recipes set the
// same field differently, the later one wins here.
CandidateSpec CombineRecipes(const std::vector<const Recipe*>& recipes);

}  // namespace advisor
