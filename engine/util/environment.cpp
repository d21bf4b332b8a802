#include "engine/util/environment.h"

extern char** environ;

namespace advisor {

std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& additions) {
  std::vector<std::string> merged;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string text = *entry;
    if (additions.count(text.substr(0, text.find('='))) == 0) merged.push_back(text);
  }
  for (const auto& [name, value] : additions) merged.push_back(name + "=" + value);
  return merged;
}

}  // namespace advisor
