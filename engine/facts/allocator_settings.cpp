#include "engine/facts/allocator_settings.h"

#include <cctype>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace advisor {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Splits on commas that are not inside [...].
std::vector<std::string_view> SplitOptions(std::string_view conf) {
  std::vector<std::string_view> options;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= conf.size(); ++i) {
    if (i == conf.size() || (conf[i] == ',' && depth == 0)) {
      if (std::string_view option = Trim(conf.substr(start, i - start)); !option.empty()) {
        options.push_back(option);
      }
      start = i + 1;
    } else if (conf[i] == '[') {
      ++depth;
    } else if (conf[i] == ']' && depth > 0) {
      --depth;
    }
  }
  return options;
}

bool IsTrue(std::string_view value) {
  std::string lower;
  for (char c : value) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "true" || lower == "1";
}

// The number in `value`, or null when it is not one.
nlohmann::json Number(const std::string& value) {
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size()) return nullptr;
  return number;
}

}  // namespace

nlohmann::json AllocatorFacts(const std::string& conf) {
  nlohmann::json options = nlohmann::json::object();
  for (std::string_view option : SplitOptions(conf)) {
    const std::size_t colon = option.find(':');
    const std::string key(Trim(option.substr(0, colon)));
    options[key] =
        colon == std::string_view::npos ? "" : std::string(Trim(option.substr(colon + 1)));
  }
  const auto option = [&](const char* key) -> std::string {
    return options.contains(key) ? options[key].get<std::string>() : "";
  };
  nlohmann::json allocator = {
      {"conf", conf},
      {"backend", option("backend").empty() ? "native" : option("backend")},
      {"expandable_segments", IsTrue(option("expandable_segments"))},
      {"options", options},
  };
  if (nlohmann::json size = Number(option("max_split_size_mb")); !size.is_null()) {
    allocator["max_split_size_mb"] = size;
  }
  if (nlohmann::json threshold = Number(option("garbage_collection_threshold"));
      !threshold.is_null()) {
    allocator["garbage_collection_threshold"] = threshold;
  }
  return allocator;
}

}  // namespace advisor
