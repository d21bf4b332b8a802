#include "engine/autotest/recipe.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace advisor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Recipes are a few hundred bytes; anything far larger is not a recipe and is refused unread.
constexpr std::uintmax_t kMaxRecipeBytes = 64 * 1024;

const std::set<std::string> kTopLevelKeys = {
    "id",      "title", "description", "kind",    "status",   "preserves_semantics", "tolerance",
    "devices", "doors", "env",         "overrides", "rewrite",  "requires",            "conflicts_with"};
const std::set<std::string> kDevices = {"cpu", "cuda"};
const std::set<std::string> kDoors = {"model", "script", "ranks"};

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

// Reads typed fields; every failure names the source and the field.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const {
    throw RecipeError(source_ + ": " + field + ": " + problem);
  }

  const json& Required(const json& object, const std::string& key) const {
    if (!object.contains(key)) Fail(key, "missing");
    return object.at(key);
  }

  std::string String(const json& value, const std::string& field) const {
    if (!value.is_string()) Fail(field, std::string("must be a string, got ") + value.type_name());
    return value.get<std::string>();
  }

  std::string Choice(const json& value, const std::string& field,
                     const std::set<std::string>& allowed) const {
    std::string chosen = String(value, field);
    OneOf(chosen, field, allowed);
    return chosen;
  }

  void OneOf(const std::string& chosen, const std::string& field,
             const std::set<std::string>& allowed) const {
    if (allowed.count(chosen) != 0) return;
    std::string listed;
    for (const std::string& option : allowed)
      listed += (listed.empty() ? "" : ", ") + Quoted(option);
    Fail(field, "must be one of " + listed + ", got " + Quoted(chosen));
  }

  bool Bool(const json& value, const std::string& field) const {
    if (!value.is_boolean()) Fail(field, std::string("must be true or false, got ") + value.dump());
    return value.get<bool>();
  }

  int PositiveInt(const json& value, const std::string& field) const {
    if (!value.is_number_integer() || value.get<long long>() < 1 ||
        value.get<long long>() > 1'000'000) {
      Fail(field, "must be a positive integer, got " + value.dump());
    }
    return static_cast<int>(value.get<long long>());
  }

  ThreadCount Threads(const json& value, const std::string& field) const {
    if (value.is_string() && value.get<std::string>() == "physical-cores") return ThreadCount{};
    if (!value.is_number_integer()) {
      Fail(field, "must be a positive integer or \"physical-cores\", got " + value.dump());
    }
    return ThreadCount{PositiveInt(value, field)};
  }

  std::vector<std::string> Strings(const json& value, const std::string& field) const {
    if (!value.is_array()) Fail(field, std::string("must be a list, got ") + value.type_name());
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < value.size(); ++i) {
      strings.push_back(String(value[i], field + "[" + std::to_string(i) + "]"));
    }
    return strings;
  }

  const json& Object(const json& value, const std::string& field) const {
    if (!value.is_object()) Fail(field, std::string("must be an object, got ") + value.type_name());
    return value;
  }

 private:
  std::string source_;
};

void ReadOverride(const Reader& reader, const json& value, const std::string& field,
                  std::optional<bool>& into) {
  into = reader.Bool(value, field);
}
void ReadOverride(const Reader& reader, const json& value, const std::string& field,
                  std::optional<int>& into) {
  into = reader.PositiveInt(value, field);
}
void ReadOverride(const Reader& reader, const json& value, const std::string& field,
                  std::optional<std::string>& into) {
  into = reader.String(value, field);
}
void ReadOverride(const Reader& reader, const json& value, const std::string& field,
                  std::optional<ThreadCount>& into) {
  into = reader.Threads(value, field);
}

RecipeOverrides ReadOverrides(const Reader& reader, const json& object) {
  RecipeOverrides overrides;
  for (const auto& item : reader.Object(object, "overrides").items()) {
    const std::string field = "overrides." + item.key();
    bool known = false;
    ForEachOverrideField([&](const char* name, auto member) {
      if (item.key() != name) return;
      known = true;
      ReadOverride(reader, item.value(), field, overrides.*member);
    });
    if (!known) reader.Fail(field, "unknown override");
  }
  if (overrides.batch_scale && *overrides.batch_scale < 2) {
    reader.Fail("overrides.batch_scale",
                "must be at least 2, got " + std::to_string(*overrides.batch_scale));
  }
  if (overrides.autocast_dtype && *overrides.autocast_dtype != "bfloat16") {
    reader.Fail("overrides.autocast_dtype",
                "must be \"bfloat16\", got " + Quoted(*overrides.autocast_dtype));
  }
  if (overrides.sdpa_backend) {
    reader.OneOf(*overrides.sdpa_backend, "overrides.sdpa_backend",
                 {SdpaBackendNames().begin(), SdpaBackendNames().end()});
  }
  if (overrides.fsdp_sharding_strategy) {
    reader.OneOf(*overrides.fsdp_sharding_strategy, "overrides.fsdp_sharding_strategy",
                 {FsdpShardingStrategies().begin(), FsdpShardingStrategies().end()});
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

std::string ReadFileText(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  if (error) throw RecipeError(path + ": cannot read: " + error.message());
  if (size > kMaxRecipeBytes) {
    throw RecipeError(path + ": " + std::to_string(size) +
                      " bytes is too large for a recipe (at most " +
                      std::to_string(kMaxRecipeBytes) + ")");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RecipeError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Recipe ParseRecipe(const std::string& json_text, const std::string& source) {
  const Reader reader(source);
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& error) {  // a syntax error, or a number beyond double
    const std::string message = error.what();
    throw RecipeError(source + ": not valid JSON: " + message.substr(0, message.find('\n')));
  }
  if (!root.is_object()) reader.Fail("top level", "must be a JSON object");
  for (const auto& item : root.items()) {
    if (kTopLevelKeys.count(item.key()) == 0) reader.Fail(item.key(), "unknown field");
  }

  Recipe recipe;
  recipe.source = source;
  recipe.id = reader.String(reader.Required(root, "id"), "id");
  if (!IsRecipeId(recipe.id)) {
    reader.Fail("id", "must be lower-case letters, digits and '-', got " + Quoted(recipe.id));
  }
  recipe.title = reader.String(reader.Required(root, "title"), "title");
  recipe.description = reader.String(reader.Required(root, "description"), "description");
  recipe.kind = reader.Choice(reader.Required(root, "kind"), "kind", {"knob", "rewrite"}) == "knob"
                    ? RecipeKind::kKnob
                    : RecipeKind::kRewrite;
  recipe.status =
      reader.Choice(reader.Required(root, "status"), "status", {"ready", "planned"}) == "ready"
          ? RecipeStatus::kReady
          : RecipeStatus::kPlanned;
  recipe.preserves_semantics =
      reader.Bool(reader.Required(root, "preserves_semantics"), "preserves_semantics");
  const std::string tolerance = reader.Choice(reader.Required(root, "tolerance"), "tolerance",
                                              {"reordering", "tf32", "unchecked"});
  recipe.tolerance = tolerance == "reordering" ? ToleranceClass::kReordering
                     : tolerance == "tf32"     ? ToleranceClass::kTf32
                                               : ToleranceClass::kUnchecked;
  // A recipe that keeps the computation must say how close the numbers stay, and one that changes
  // it cannot be held to a tolerance.
  if (recipe.preserves_semantics == (recipe.tolerance == ToleranceClass::kUnchecked)) {
    reader.Fail("tolerance", recipe.preserves_semantics
                                 ? "\"unchecked\" contradicts \"preserves_semantics\": true"
                                 : "must be \"unchecked\" when \"preserves_semantics\" is false");
  }

  recipe.devices = reader.Strings(reader.Required(root, "devices"), "devices");
  if (recipe.devices.empty()) reader.Fail("devices", "must name at least one device");
  for (std::size_t i = 0; i < recipe.devices.size(); ++i) {
    const std::string field = "devices[" + std::to_string(i) + "]";
    reader.Choice(recipe.devices[i], field, kDevices);
    if (std::count(recipe.devices.begin(), recipe.devices.end(), recipe.devices[i]) > 1) {
      reader.Fail(field, Quoted(recipe.devices[i]) + " is listed twice");
    }
  }

  // Without "doors", a knob applies through both front doors and a rewrite only to a model.
  recipe.doors = root.contains("doors") ? reader.Strings(root["doors"], "doors")
                 : recipe.kind == RecipeKind::kRewrite ? std::vector<std::string>{"model"}
                                                       : std::vector<std::string>{"model", "script"};
  if (recipe.doors.empty()) reader.Fail("doors", "must name at least one front door");
  for (std::size_t i = 0; i < recipe.doors.size(); ++i) {
    reader.Choice(recipe.doors[i], "doors[" + std::to_string(i) + "]", kDoors);
  }
  if (recipe.kind == RecipeKind::kRewrite &&
      std::find(recipe.doors.begin(), recipe.doors.end(), "script") != recipe.doors.end()) {
    reader.Fail("doors", "a graph rewrite needs a TorchScript model: \"script\" cannot apply it");
  }

  if (root.contains("env")) {
    for (const auto& [name, value] : reader.Object(root["env"], "env").items()) {
      if (!IsEnvName(name))
        reader.Fail("env", Quoted(name) + " is not an environment variable name");
      recipe.env[name] = reader.String(value, "env." + name);
    }
  }
  if (root.contains("overrides")) recipe.overrides = ReadOverrides(reader, root["overrides"]);
  if (root.contains("rewrite")) recipe.rewrite = reader.String(root["rewrite"], "rewrite");

  if (recipe.kind == RecipeKind::kRewrite) {
    if (recipe.rewrite.empty())
      reader.Fail("rewrite", "missing (a rewrite recipe names its rewrite)");
    const auto& builtin = BuiltinRewrites();
    if (std::find(builtin.begin(), builtin.end(), recipe.rewrite) == builtin.end()) {
      std::string listed;
      for (const std::string& name : builtin) listed += (listed.empty() ? "" : ", ") + Quoted(name);
      reader.Fail("rewrite",
                  Quoted(recipe.rewrite) + " is not a built-in rewrite (" + listed + ")");
    }
    if (!recipe.env.empty() || HasOverride(recipe.overrides)) {
      reader.Fail("kind",
                  "a rewrite recipe changes the graph only; put env and overrides in a knob");
    }
  } else {
    if (root.contains("rewrite")) reader.Fail("rewrite", "only a rewrite recipe names a rewrite");
    if (recipe.env.empty() && !HasOverride(recipe.overrides)) {
      reader.Fail("kind", "a knob recipe must set \"env\" or \"overrides\"");
    }
  }

  if (root.contains("requires")) {
    const json& requirements = reader.Object(root["requires"], "requires");
    for (const auto& item : requirements.items()) {
      if (item.key() != "torch") reader.Fail("requires." + item.key(), "unknown requirement");
    }
    if (requirements.contains("torch")) {
      recipe.min_torch_version = reader.String(requirements["torch"], "requires.torch");
      if (!IsVersion(recipe.min_torch_version)) {
        reader.Fail("requires.torch",
                    "must be a version such as \"2.1\", got " + Quoted(recipe.min_torch_version));
      }
    }
  }

  if (root.contains("conflicts_with")) {
    recipe.conflicts_with = reader.Strings(root["conflicts_with"], "conflicts_with");
    for (const std::string& other : recipe.conflicts_with) {
      if (!IsRecipeId(other)) reader.Fail("conflicts_with", Quoted(other) + " is not a recipe id");
      if (other == recipe.id) reader.Fail("conflicts_with", "a recipe cannot conflict with itself");
    }
  }
  return recipe;
}

Recipe LoadRecipe(const std::string& path) {
  Recipe recipe = ParseRecipe(ReadFileText(path), path);
  const std::string stem = fs::path(path).stem().string();
  if (recipe.id != stem) {
    throw RecipeError(path + ": id: " + Quoted(recipe.id) + " must equal the file name " +
                      Quoted(stem));
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
      set.errors.push_back(recipe.source + ": conflicts_with: no recipe " + Quoted(unknown) +
                           " in " + dir);
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
