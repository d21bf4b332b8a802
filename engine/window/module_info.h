// The module hierarchy as every front door describes it to the bisection: plain data, no LibTorch.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace advisor {

struct ModuleInfo {
  std::string path;          // "" for the root
  std::string type;          // class name: TorchScript's qualified name, or Python's module.Class
  long long parameters = 0;  // own and descendants'
  std::vector<std::string> op_types;  // operator kinds its own forward uses, not its submodules',
                                      // where the front door can tell (TorchScript can)
  bool has_forward = false;           // containers such as ModuleList have none
  bool calls_submodules = false;      // its forward calls another module: it can be descended
  // Why the bisection must not look inside it although it has submodules, e.g. "compiled with
  // torch.compile: measured as one leaf"; "" when it may.
  std::string opaque_reason;
  // torch.compile'd whole (a script's compiled model): markers cannot sit inside it, so its
  // levels are measured by its kernels' provenance or by regional compilation.
  bool compiled = false;
};

// Every instance by path; "" is the root.
using ModuleTree = std::map<std::string, ModuleInfo>;

// The parent path of "a.b.c" is "a.b"; of "a" it is "".
std::string ParentPath(const std::string& path);

// The class name without the marks TorchScript adds when it compiles one Python class into
// several types (an attribute or submodule type differs): "__torch__.m.___torch_mangle_5.Block"
// is "__torch__.m.Block".
std::string UnmangledType(const std::string& type);

// What same-shaped instances share, however TorchScript named their types: the unmangled type
// and every child's name and structure, recursively. Parameters are left to the comparison
// (engine/bisect/bisect_policy.h, kParameterSlack): one extra bias or gate in an instance leaves
// it the same block, which equal parameter shapes here would not.
std::string StructureOf(const ModuleTree& modules, const std::string& path);

}  // namespace advisor
