#include "engine/diff/module_frontier.h"

#include <map>
#include <set>

namespace advisor {
namespace {

// One side's measured modules by path, each with the nearest measured module above it: a
// container that no level timed (a ModuleList whose instances were instrumented as a group,
// `blocks` above `blocks.3`) is skipped, so `blocks.3` hangs from the root.
struct MeasuredTree {
  std::map<std::string, double> ms;                       // ModuleTime's
  std::map<std::string, std::set<std::string>> children;  // "" is the root

  MeasuredTree(const std::vector<ModuleStats>& modules, ModuleTime time) {
    for (const ModuleStats& module : modules) {
      if (!module.measured) continue;
      ms[module.path] =
          time == ModuleTime::kDevice ? module.gpu_ms : module.forward_ms + module.backward_ms;
    }
    for (const auto& entry : ms) children[MeasuredParent(entry.first)].insert(entry.first);
  }

  std::string MeasuredParent(std::string path) const {
    for (std::size_t dot = path.rfind('.'); dot != std::string::npos; dot = path.rfind('.')) {
      path.resize(dot);
      if (ms.count(path)) return path;
    }
    return "";
  }

  const std::set<std::string>* ChildrenOf(const std::string& path) const {
    const auto found = children.find(path);
    return found == children.end() ? nullptr : &found->second;
  }

  std::optional<double> MsOf(const std::string& path) const {
    const auto found = ms.find(path);
    return found == ms.end() ? std::nullopt : std::optional<double>(found->second);
  }

  // Its time less its measured children's: medians of different windows, so it can be a little
  // below 0.
  std::optional<double> OwnMsOf(const std::string& path) const {
    std::optional<double> own = MsOf(path);
    if (!own) return own;
    if (const std::set<std::string>* below = ChildrenOf(path)) {
      for (const std::string& child : *below) *own -= ms.at(child);
    }
    return own;
  }
};

void AddSplit(const MeasuredTree& before, const MeasuredTree& after, const std::string& path,
              std::vector<FrontierModule>& out) {
  std::set<std::string> children;
  for (const MeasuredTree* side : {&before, &after}) {
    if (const std::set<std::string>* found = side->ChildrenOf(path)) {
      children.insert(found->begin(), found->end());
    }
  }
  for (const std::string& child : children) {
    if (before.ChildrenOf(child) && after.ChildrenOf(child)) {
      AddSplit(before, after, child, out);
      continue;
    }
    out.push_back({child, before.MsOf(child), after.MsOf(child), false});
  }
  if (path.empty()) return;  // the root's own time is the phases' less the modules'
  out.push_back({path, before.OwnMsOf(path), after.OwnMsOf(path), true});
}

}  // namespace

std::vector<FrontierModule> ModuleFrontier(const std::vector<ModuleStats>& before,
                                           const std::vector<ModuleStats>& after, ModuleTime time) {
  std::vector<FrontierModule> out;
  AddSplit(MeasuredTree(before, time), MeasuredTree(after, time), "", out);
  return out;
}

}  // namespace advisor
