// Static facts about the module hierarchy of a loaded TorchScript model.
#pragma once

#include <torch/script.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/window/module_info.h"

namespace advisor {

// Inlining a forward (FindOpSource inlines submodules too) can make TorchScript cache the
// callees' optimised graphs, which a later instrumentation of the same module would not reach:
// describe a copy that will not be instrumented.
ModuleTree DescribeModules(const torch::jit::Module& root);

// The instance at `path` ("" is the root); throws std::out_of_range for an unknown path.
torch::jit::Module ModuleAt(const torch::jit::Module& root, const std::string& path);

// The file and line of the first node of kind `op` (e.g. "aten::gather") in the forward of the
// module at `path`, functions it calls included; where that line is torch's own, the first frame
// of its inlined call stack in the model author's code (F.layer_norm's caller), else the line
// of the model author's code that calls the module (a Linear's F.linear in
// torch/nn/modules/linear.py). nullopt when the archive has no debug info.
std::optional<SourceLocation> FindOpSource(const torch::jit::Module& root, const std::string& path,
                                           const std::string& op);

// The line of the model author's code that calls the module at `path` (from the nearest ancestor
// whose forward calls it outside torch's package); nullopt for the root or when none does.
// Throws std::out_of_range for an unknown path.
std::optional<SourceLocation> FindModuleCallSource(const torch::jit::Module& root,
                                                   const std::string& path);

}  // namespace advisor
