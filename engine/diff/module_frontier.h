// The module instances two runs' reports can be compared at: the deepest level both measured.
//
// A bisection instruments the children of one module per level, so a report times the root's
// children, then the children of the one it chose, and so on down; two runs that chose alike
// measured the same instances, and where they chose differently one measured children the other
// did not. The frontier starts at the root's children and replaces a module by its children only
// where both sides measured them, so that every module on it has a time on each side that it
// existed on, and no module's time is counted twice (a parent and its child).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/localisation.h"

namespace advisor {

// What a module's time is: its forward and backward host time, or the device time its ops
// launched (ModuleStats::gpu_ms), where both runs' levels recorded kernels.
enum class ModuleTime { kHost, kDevice };

struct FrontierModule {
  std::string path;
  // Its time per step (ModuleTime); none where the module is not on that side (renamed, removed,
  // added) or no level of that side measured it.
  std::optional<double> before_ms;
  std::optional<double> after_ms;
  // The module's time outside its measured children: it was split into them, and what its
  // children do not hold stays with it.
  bool own_time = false;
};

// The frontier's modules in path order, each split module's own time right after its children.
std::vector<FrontierModule> ModuleFrontier(const std::vector<ModuleStats>& before,
                                           const std::vector<ModuleStats>& after,
                                           ModuleTime time = ModuleTime::kHost);

}  // namespace advisor
