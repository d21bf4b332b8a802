#include "engine/torch/module_tree.h"

#include <torch/csrc/jit/passes/inliner.h>

#include "engine/torch/function_inliner.h"
#include "engine/torch/source_location.h"

#include <set>
#include <stdexcept>

namespace advisor {
namespace {

bool IsSubmoduleCall(const torch::jit::Node* node, const torch::jit::Value* self) {
  return node->kind() == c10::prim::CallMethod && node->inputs()[0] != self;
}

// Whether `block` (nested blocks included) calls a module other than `self`.
bool CallsSubmodules(const torch::jit::Block* block, const torch::jit::Value* self) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (IsSubmoduleCall(node, self)) return true;
    for (const torch::jit::Block* inner : node->blocks()) {
      if (CallsSubmodules(inner, self)) return true;
    }
  }
  return false;
}

// The module's own forward with the free functions it calls inlined: its own ops, not its
// children's (their calls stay prim::CallMethod).
std::shared_ptr<torch::jit::Graph> OwnForward(const torch::jit::Module& module) {
  auto graph = module.get_method("forward").graph()->copy();
  InlineFunctionCalls(*graph);
  return graph;
}

// Everything the forward runs, submodules included.
std::shared_ptr<torch::jit::Graph> WholeForward(const torch::jit::Module& module) {
  auto graph = module.get_method("forward").graph()->copy();
  torch::jit::Inline(*graph);
  return graph;
}

void CollectKinds(const torch::jit::Block* block, std::set<std::string>& kinds) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind().is_aten()) kinds.insert(node->kind().toQualString());
    for (const torch::jit::Block* inner : node->blocks()) CollectKinds(inner, kinds);
  }
}

const torch::jit::Node* FindNode(const torch::jit::Block* block, const c10::Symbol& kind) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == kind) return node;
    for (const torch::jit::Block* inner : node->blocks()) {
      if (const torch::jit::Node* found = FindNode(inner, kind)) return found;
    }
  }
  return nullptr;
}

// The node's line, or where it is torch's own (F.layer_norm's body in torch/nn/functional.py),
// the innermost call of its inlined call stack from outside torch's package: the model author's
// line that called into torch. nullopt when every frame is torch's; `torch_line` then gets the
// node's own line.
std::optional<SourceLocation> UserLocationOf(const torch::jit::Node* node,
                                             std::optional<SourceLocation>& torch_line) {
  torch_line = LocationOf(node->sourceRange());
  if (torch_line && !InTorchPackage(torch_line->file)) return torch_line;
  if (const auto stack = node->callstack()) {
    // Outermost call first, innermost last (torch/csrc/jit/ir/scope.h).
    const std::vector<torch::jit::InlinedCallStackEntry> calls = (*stack)->vec();
    for (auto call = calls.rbegin(); call != calls.rend(); ++call) {
      std::optional<SourceLocation> location = LocationOf(std::get<1>(*call));
      if (location && !InTorchPackage(location->file)) return location;
    }
  }
  return std::nullopt;
}

// "towers.item" for a value got as self.towers.item; "" when it is not an attribute chain of
// `self`.
std::string AttributePath(const torch::jit::Value* value, const torch::jit::Value* self) {
  std::string path;
  while (value != self) {
    const torch::jit::Node* node = value->node();
    if (node->kind() != c10::prim::GetAttr) return "";
    const std::string name = node->s(c10::attr::name);
    path = path.empty() ? name : name + "." + path;
    value = node->inputs()[0];
  }
  return path;
}

// The first call, in `block`, of the submodule at `relative` (or of a module that holds it).
const torch::jit::Node* FindCallOf(const torch::jit::Block* block, const torch::jit::Value* self,
                                   const std::string& relative) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::CallMethod) {
      const std::string called = AttributePath(node->inputs()[0], self);
      if (!called.empty() && (relative == called || relative.rfind(called + ".", 0) == 0)) {
        return node;
      }
    }
    for (const torch::jit::Block* inner : node->blocks()) {
      if (const torch::jit::Node* found = FindCallOf(inner, self, relative)) return found;
    }
  }
  return nullptr;
}

// Where the model author's code calls the module at `path`: the nearest ancestor whose forward
// calls it (or a container holding it) from a file outside torch's package. A Linear's op sits in
// torch/nn/modules/linear.py and a Sequential's calls in container.py; the line that matters is
// the user's `self.towers["item"](x)`.
std::optional<SourceLocation> UserCallSite(const torch::jit::Module& root,
                                           const std::string& path) {
  std::string ancestor = path;
  while (!ancestor.empty()) {
    const std::size_t dot = ancestor.rfind('.');
    ancestor = dot == std::string::npos ? "" : ancestor.substr(0, dot);
    const torch::jit::Module module = ModuleAt(root, ancestor);
    if (!module.find_method("forward")) continue;  // a ModuleDict or ModuleList: no code of its own
    const auto graph = OwnForward(module);
    const std::string relative = ancestor.empty() ? path : path.substr(ancestor.size() + 1);
    const torch::jit::Node* call = FindCallOf(graph->block(), graph->inputs()[0], relative);
    if (call == nullptr) continue;
    std::optional<SourceLocation> torch_line;
    if (std::optional<SourceLocation> location = UserLocationOf(call, torch_line)) return location;
  }
  return std::nullopt;
}

}  // namespace

torch::jit::Module ModuleAt(const torch::jit::Module& root, const std::string& path) {
  torch::jit::Module module = root;
  std::size_t begin = 0;
  while (begin < path.size()) {
    std::size_t end = path.find('.', begin);
    if (end == std::string::npos) end = path.size();
    const std::string name = path.substr(begin, end - begin);
    auto child = module.attr(name, c10::IValue());
    if (!child.isModule()) throw std::out_of_range("no module instance at " + path);
    module = child.toModule();
    begin = end + 1;
  }
  return module;
}

ModuleTree DescribeModules(const torch::jit::Module& root) {
  ModuleTree modules;
  for (const torch::jit::NameModule& named : root.named_modules()) {
    ModuleInfo info;
    info.path = named.name;
    // A class scripted twice with other attributes gets a second, mangled type name
    // (`__torch__.___torch_mangle_5.Block`): the report names the class.
    info.type = named.value.type()->name()
                    ? UnmangledType(named.value.type()->name()->qualifiedName())
                    : "";
    for (const torch::jit::NameTensor& parameter : named.value.named_parameters()) {
      info.parameters += parameter.value.numel();
    }
    if (auto forward = named.value.find_method("forward")) {
      info.has_forward = true;
      const auto graph = forward->graph();
      info.calls_submodules = CallsSubmodules(graph->block(), graph->inputs()[0]);
      std::set<std::string> kinds;
      CollectKinds(OwnForward(named.value)->block(), kinds);
      info.op_types.assign(kinds.begin(), kinds.end());
    }
    modules[info.path] = std::move(info);
  }
  return modules;
}

std::optional<SourceLocation> FindOpSource(const torch::jit::Module& root, const std::string& path,
                                           const std::string& op) {
  if (op.rfind("aten::", 0) != 0) return std::nullopt;
  const torch::jit::Module module = ModuleAt(root, path);
  if (!module.find_method("forward")) return std::nullopt;
  // The module's own node first; a descendant's when the descent stopped above the op's module.
  const c10::Symbol kind = c10::Symbol::fromQualString(op);
  auto graph = OwnForward(module);
  const torch::jit::Node* node = FindNode(graph->block(), kind);
  if (node == nullptr) {
    graph = WholeForward(module);
    node = FindNode(graph->block(), kind);
  }
  if (node == nullptr) return std::nullopt;
  std::optional<SourceLocation> torch_line;
  if (std::optional<SourceLocation> location = UserLocationOf(node, torch_line)) return location;
  if (std::optional<SourceLocation> call = UserCallSite(root, path)) return call;
  return torch_line;
}

std::optional<SourceLocation> FindModuleCallSource(const torch::jit::Module& root,
                                                   const std::string& path) {
  if (path.empty()) return std::nullopt;
  ModuleAt(root, path);  // throws for an unknown path
  return UserCallSite(root, path);
}

}  // namespace advisor
