// Static facts about the module hierarchy of a loaded TorchScript model.
#pragma once

#include <torch/script.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/report/report.h"

namespace advisor {

struct ModuleInfo {
  std::string path;  // "" for the root
  std::string type;  // TorchScript class name
  long long parameters = 0;            // own and descendants'
  std::vector<std::string> op_types;   // operator kinds its own forward (and the functions it
                                       // calls) uses, not its submodules'
  bool has_forward = false;            // containers such as ModuleList have none
  bool calls_submodules = false;       // its forward calls another module: it can be descended
};

// Inlining a forward (FindOpSource inlines submodules too) can make TorchScript cache the
// callees' optimised graphs, which a later instrumentation of the same module would not reach:
// describe a copy that will not be instrumented.
std::map<std::string, ModuleInfo> DescribeModules(const torch::jit::Module& root);

// The instance at `path` ("" is the root); throws std::out_of_range for an unknown path.
torch::jit::Module ModuleAt(const torch::jit::Module& root, const std::string& path);

// The parent path of "a.b.c" is "a.b"; of "a" it is "".
std::string ParentPath(const std::string& path);

// The file and line of the first node of kind `op` (e.g. "aten::gather") in the forward of the
// module at `path`, functions it calls included; nullopt when the archive has no debug info.
std::optional<SourceLocation> FindOpSource(const torch::jit::Module& root, const std::string& path,
                                           const std::string& op);

}  // namespace advisor
