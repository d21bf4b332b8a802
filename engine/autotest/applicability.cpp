#include "engine/autotest/applicability.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace advisor {
namespace {

// "2.11.0+cu130" -> {2, 11, 0}; stops at the first character that is neither a digit nor a dot
// between numbers.
std::vector<long> VersionNumbers(const std::string& version) {
  std::vector<long> numbers;
  std::size_t i = 0;
  while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i]))) {
    long number = 0;
    for (; i < version.size() && std::isdigit(static_cast<unsigned char>(version[i])); ++i) {
      number = std::min(number * 10 + (version[i] - '0'), 1'000'000'000L);
    }
    numbers.push_back(number);
    if (i + 1 < version.size() && version[i] == '.') ++i;
  }
  return numbers;
}

}  // namespace

bool VersionAtLeast(const std::string& version, const std::string& minimum) {
  std::vector<long> have = VersionNumbers(version);
  std::vector<long> need = VersionNumbers(minimum);
  if (have.empty()) return false;
  const std::size_t length = std::max(have.size(), need.size());
  have.resize(length, 0);
  need.resize(length, 0);
  return !std::lexicographical_compare(have.begin(), have.end(), need.begin(), need.end());
}

std::string WhyNotApplicable(const Recipe& recipe, Door door, const std::string& device,
                             const std::string& torch_version) {
  if (recipe.status == RecipeStatus::kPlanned) {
    return "not implemented: the worker cannot apply this recipe yet (status \"planned\")";
  }
  const auto opens = [&](Door opened) {
    return std::find(recipe.doors.begin(), recipe.doors.end(), opened) != recipe.doors.end();
  };
  // A launcher's ranks are scripts: what the probe applies to one script it applies to each rank.
  const bool applies = opens(door) || (door == Door::kRanks && opens(Door::kScript));
  if (!applies) {
    if (door == Door::kModel) {
      return "not applicable to a TorchScript model: only a script run can apply it";
    }
    if (opens(Door::kRanks)) {
      return "not applicable: it needs several ranks under a launcher (torchrun), and this "
             "script runs one process";
    }
    return "not applicable to a script: it needs a TorchScript model (advisor bisect "
           "model.pt); apply it to your code by hand";
  }
  if (std::find(recipe.devices.begin(), recipe.devices.end(), device) == recipe.devices.end()) {
    std::string devices;
    for (const std::string& name : recipe.devices) devices += (devices.empty() ? "" : ", ") + name;
    // A CUDA graph is a GPU's alone: say why rather than only where the recipe applies.
    const bool graphs = recipe.overrides.cuda_graphs.value_or(false) ||
                        recipe.overrides.compile_mode == "reduce-overhead";
    return "not applicable: applies to " + devices + ", this run is on " + device +
           (graphs && device == "cpu" ? ": CUDA graphs replay a GPU's kernel launches, and a CPU "
                                        "step launches none"
                                      : "");
  }
  if (!recipe.min_torch_version.empty() &&
      !VersionAtLeast(torch_version, recipe.min_torch_version)) {
    return "not applicable: needs torch " + recipe.min_torch_version + " or newer, this is " +
           (torch_version.empty() ? std::string("an unknown version") : torch_version);
  }
  return {};
}

}  // namespace advisor
