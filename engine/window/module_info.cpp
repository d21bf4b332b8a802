#include "engine/window/module_info.h"

#include <regex>

namespace advisor {

std::string ParentPath(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string UnmangledType(const std::string& type) {
  static const std::regex kMangle(R"(___torch_mangle_\d+\.)");
  return std::regex_replace(type, kMangle, "");
}

std::string StructureOf(const ModuleTree& modules, const std::string& path) {
  const auto found = modules.find(path);
  if (found == modules.end()) return "";
  const ModuleInfo& info = found->second;
  std::string structure = UnmangledType(info.type) + "(";
  // The children: the paths one level below, which follow `path.` in the map's order.
  const std::string prefix = path.empty() ? "" : path + ".";
  for (auto it = modules.lower_bound(prefix); it != modules.end(); ++it) {
    const std::string& child = it->first;
    if (child.compare(0, prefix.size(), prefix) != 0) break;
    if (child.size() == prefix.size() || ParentPath(child) != path) continue;
    structure += child.substr(prefix.size()) + "=" + StructureOf(modules, child) + ",";
  }
  return structure + ")";
}

}  // namespace advisor
