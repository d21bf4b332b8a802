// A recipe file: any bytes parse into a Recipe or fail with a RecipeError naming the field; what
// parses is combined and judged for applicability as the autotester does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/autotest/applicability.h"
#include "engine/autotest/candidate.h"
#include "engine/autotest/recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const advisor::Recipe recipe = advisor::ParseRecipe(text, "recipes/fuzz.json");
    advisor::CombineRecipes({&recipe, &recipe});
    advisor::WhyNotApplicable(recipe, advisor::Door::kScript, "cuda", "2.1.0");
    advisor::WhyNotApplicable(recipe, advisor::Door::kModel, "cpu", "1.13.0");
  } catch (const advisor::RecipeError&) {
  }
  return 0;
}
