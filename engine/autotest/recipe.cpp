#include "engine/autotest/recipe.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Recipes are a few hundred bytes; anything far larger is not a recipe and is refused unread.
constexpr std::uintmax_t kMaxRecipeBytes = 64 * 1024;

// Thread counts, batch scales and bucket sizes: far above any machine's or model's.
constexpr std::int64_t kMaxOverrideInteger = 1'000'000;
constexpr std::size_t kMaxOverrideNames = 1024;  // module instances a recipe file may list

const std::vector<std::string> kTopLevelKeys = {
    "id",      "title", "description", "kind",      "status",  "preserves_semantics", "tolerance",
    "devices", "doors", "env",         "overrides", "rewrite", "requires", "conflicts_with"};
const std::vector<std::string> kDevices = {"cpu", "cuda"};
// The doors a recipe may name: a trace runs nothing.
const std::vector<std::string> kRecipeDoors = {DoorName(Door::kModel), DoorName(Door::kScript),
                                               DoorName(Door::kRanks)};

std::string Quoted(const std::string& text) { return "\"" + text + "\""; }

// Recipe ids double as file names and as parts of a combination's id ("a+b"), so they are kept to
// lower-case words joined by '-'.
bool IsRecipeId(const std::string& id) {
  return !id.empty() && id.front() != '-' && id.back() != '-' &&
         std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

bool IsEnvName(const std::string& name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void ReadOverride(const JsonField& field, std::optional<bool>& into) { into = field.Bool(); }
void ReadOverride(const JsonField& field, std::optional<int>& into) {
  into = static_cast<int>(field.Integer(1, kMaxOverrideInteger));
}
void ReadOverride(const JsonField& field, std::optional<std::string>& into) {
  into = field.String();
}
void ReadOverride(const JsonField& field, std::optional<std::vector<std::string>>& into) {
  into.emplace();
  for (const JsonField& element : field.Elements(0, kMaxOverrideNames)) {
    into->push_back(element.String());
  }
}
void ReadOverride(const JsonField& field, std::optional<ThreadCount>& into) {
  if (field.IsString() && field.String() == "physical-cores") {
    into = ThreadCount{};
  } else if (!field.value().is_number_integer()) {
    field.Refuse("an integer from 1 to " + std::to_string(kMaxOverrideInteger) +
                 " or \"physical-cores\"");
  } else {
    into = ThreadCount{static_cast<int>(field.Integer(1, kMaxOverrideInteger))};
  }
}

RecipeOverrides ReadOverrides(const JsonField& object) {
  std::vector<std::string> names;
  ForEachOverrideField([&](const char* name, auto) { names.push_back(name); });
  object.AllowOnly(names);
  RecipeOverrides overrides;
  ForEachOverrideField([&](const char* name, auto member) {
    if (auto field = object.Optional(name)) ReadOverride(*field, overrides.*member);
  });
  // The fields whose values are narrower than their type's.
  if (auto scale = object.Optional("batch_scale")) scale->Integer(2, kMaxOverrideInteger);
  if (auto dtype = object.Optional("autocast_dtype")) dtype->Choice({"bfloat16"});
  if (auto backend = object.Optional("sdpa_backend")) backend->Choice(SdpaBackendNames());
  if (auto attention = object.Optional("attn_implementation")) attention->Choice({"sdpa"});
  if (auto mode = object.Optional("compile_mode")) {
    mode->Choice(CompileModeNames());
    if (overrides.compile == false) {
      mode->Fail("compiles the model: \"compile\" must not be false beside it");
    }
  }
  if (auto strategy = object.Optional("fsdp_sharding_strategy")) {
    strategy->Choice(FsdpShardingStrategies());
  }
  return overrides;
}

bool HasOverride(const RecipeOverrides& overrides) {
  bool any = false;
  ForEachOverrideField(
      [&](const char*, auto member) { any = any || (overrides.*member).has_value(); });
  return any;
}

// "2", "2.1" or "2.1.0": what a minimum LibTorch version may look like.
bool IsVersion(const std::string& text) {
  bool digit_seen = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit_seen = true;
    } else if (c == '.' && digit_seen) {
      digit_seen = false;
    } else {
      return false;
    }
  }
  return digit_seen;
}

Recipe ReadRecipe(const JsonField& root) {
  root.AllowOnly(kTopLevelKeys);
  Recipe recipe;
  recipe.source = root.Source();
  const JsonField id = root.Required("id");
  recipe.id = id.String();
  if (!IsRecipeId(recipe.id)) id.Refuse("lower-case letters, digits and '-'");
  recipe.title = root.Required("title").String();
  recipe.description = root.Required("description").String();
  const JsonField kind = root.Required("kind");
  recipe.kind = kind.Choice({"knob", "rewrite"}) == "knob" ? RecipeKind::kKnob
                                                           : RecipeKind::kRewrite;
  recipe.status = root.Required("status").Choice({"ready", "planned"}) == "ready"
                      ? RecipeStatus::kReady
                      : RecipeStatus::kPlanned;
  recipe.preserves_semantics = root.Required("preserves_semantics").Bool();
  const JsonField tolerance_field = root.Required("tolerance");
  const std::string tolerance = tolerance_field.Choice({"reordering", "tf32", "unchecked"});
  recipe.tolerance = tolerance == "reordering" ? ToleranceClass::kReordering
                     : tolerance == "tf32"     ? ToleranceClass::kTf32
                                               : ToleranceClass::kUnchecked;
  // A recipe that keeps the computation must say how close the numbers stay, and one that changes
  // it cannot be held to a tolerance.
  if (recipe.preserves_semantics == (recipe.tolerance == ToleranceClass::kUnchecked)) {
    tolerance_field.Fail(recipe.preserves_semantics
                             ? "must not be \"unchecked\" when \"preserves_semantics\" is true"
                             : "must be \"unchecked\" when \"preserves_semantics\" is false");
  }

  const JsonField devices = root.Required("devices");
  for (const JsonField& device : devices.Elements(1)) {
    recipe.devices.push_back(device.Choice(kDevices));
    if (std::count(recipe.devices.begin(), recipe.devices.end(), recipe.devices.back()) > 1) {
      device.Fail("repeats " + Quoted(recipe.devices.back()));
    }
  }

  // Without "doors", a knob applies through both front doors and a rewrite only to a model.
  // Each door is parsed here, so that nothing after compares names.
  if (auto doors = root.Optional("doors")) {
    recipe.doors.clear();
    for (const JsonField& door : doors->Elements(1)) {
      recipe.doors.push_back(*ParseDoor(door.Choice(kRecipeDoors)));
    }
    if (recipe.kind == RecipeKind::kRewrite &&
        std::find(recipe.doors.begin(), recipe.doors.end(), Door::kScript) != recipe.doors.end()) {
      doors->Fail("must not name \"script\": a graph rewrite needs a TorchScript model");
    }
  } else if (recipe.kind == RecipeKind::kRewrite) {
    recipe.doors = {Door::kModel};
  }

  if (auto env = root.Optional("env")) {
    for (const JsonField& variable : env->Members()) {
      if (!IsEnvName(variable.key())) variable.Fail("is not an environment variable name");
      recipe.env[variable.key()] = variable.String();
    }
  }
  if (auto overrides = root.Optional("overrides")) recipe.overrides = ReadOverrides(*overrides);
  const std::optional<JsonField> rewrite = root.Optional("rewrite");

  if (recipe.kind == RecipeKind::kRewrite) {
    recipe.rewrite = root.Required("rewrite").Choice(BuiltinRewrites());
    if (!recipe.env.empty() || HasOverride(recipe.overrides)) {
      kind.Fail("is \"rewrite\", which changes the graph only: put env and overrides in a knob");
    }
  } else {
    if (rewrite) rewrite->Fail("is only for a recipe of kind \"rewrite\"");
    if (recipe.env.empty() && !HasOverride(recipe.overrides)) {
      kind.Fail("is \"knob\", which must set \"env\" or \"overrides\"");
    }
  }

  if (auto requirements = root.Optional("requires")) {
    requirements->AllowOnly({"torch"});
    if (auto torch = requirements->Optional("torch")) {
      recipe.min_torch_version = torch->String();
      if (!IsVersion(recipe.min_torch_version)) torch->Refuse("a version such as \"2.1\"");
    }
  }

  if (auto conflicts = root.Optional("conflicts_with")) {
    for (const JsonField& other : conflicts->Elements()) {
      recipe.conflicts_with.push_back(other.String());
      if (!IsRecipeId(recipe.conflicts_with.back())) other.Refuse("a recipe id");
      if (recipe.conflicts_with.back() == recipe.id) {
        other.Fail("names the recipe itself: a recipe cannot conflict with itself");
      }
    }
  }
  return recipe;
}

}  // namespace

Recipe ParseRecipe(const std::string& json_text, const std::string& source) {
  return RethrowAs<RecipeError>([&] {
    const json document = ParseJsonDocument(json_text, source);
    return ReadRecipe(JsonField(document, source));
  });
}

Recipe LoadRecipe(const std::string& path) {
  Recipe recipe = ParseRecipe(
      RethrowAs<RecipeError>([&] { return ReadJsonFile(path, kMaxRecipeBytes); }), path);
  const std::string stem = fs::path(path).stem().string();
  if (recipe.id != stem) {
    throw RecipeError(path + ": " + FieldName("id") + " must equal the file name " + Quoted(stem) +
                      ", got " + Quoted(recipe.id));
  }
  return recipe;
}

RecipeSet LoadRecipeDir(const std::string& dir) {
  RecipeSet set;
  std::error_code error;
  std::vector<fs::path> paths;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".json") paths.push_back(it->path());
  }
  if (error) {
    set.errors.push_back(dir + ": cannot list recipes: " + error.message());
    return set;
  }
  std::sort(paths.begin(), paths.end());

  std::vector<Recipe> parsed;
  std::set<std::string> ids;
  for (const fs::path& path : paths) {
    try {
      parsed.push_back(LoadRecipe(path.string()));
      ids.insert(parsed.back().id);
    } catch (const RecipeError& failure) {
      set.errors.push_back(failure.what());
    }
  }
  // A misspelt conflict would let two incompatible recipes be combined, so it disqualifies the
  // recipe that declares it.
  for (Recipe& recipe : parsed) {
    std::string unknown;
    for (const std::string& other : recipe.conflicts_with) {
      if (ids.count(other) == 0) unknown = other;
    }
    if (unknown.empty()) {
      set.recipes.push_back(std::move(recipe));
    } else {
      set.errors.push_back(recipe.source + ": " + FieldName("conflicts_with") + " names " +
                           Quoted(unknown) + ", which is no recipe in " + dir);
    }
  }
  return set;
}

const Recipe* FindRecipe(const std::vector<Recipe>& recipes, const std::string& id) {
  for (const Recipe& recipe : recipes) {
    if (recipe.id == id) return &recipe;
  }
  return nullptr;
}

const char* RecipeKindName(RecipeKind kind) {
  return kind == RecipeKind::kKnob ? "knob" : "rewrite";
}

}  // namespace advisor
