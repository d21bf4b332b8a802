#include "engine/torch/instrument.h"

#include <torch/csrc/jit/ir/ir.h>

#include <vector>

#include "probes/markers/marker_ops.h"

namespace advisor {
namespace {

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

bool IsTensor(const Value* value) { return value->type()->kind() == c10::TypeKind::TensorType; }

Value* InsertMark(Graph& graph, const std::vector<Value*>& tensors, Value* path,
                  std::int64_t kind) {
  Value* list = graph.insertNode(graph.createList(c10::TensorType::get(), tensors))->output();
  return graph.insert(c10::Symbol::fromQualString(kMarkOp), {list, path, kind});
}

void InsertMarkEvent(Graph& graph, Value* path, std::int64_t kind) {
  graph.insert(c10::Symbol::fromQualString(kMarkEventOp), {path, kind});
}

// Routes the call's tensor inputs through an enter marker.
void MarkInputs(Graph& graph, Node* call, Value* path) {
  torch::jit::WithInsertPoint guard(call);
  std::vector<std::size_t> positions;
  std::vector<Value*> tensors;
  for (std::size_t i = 1; i < call->inputs().size(); ++i) {  // input 0 is the callee
    if (IsTensor(call->input(i))) {
      positions.push_back(i);
      tensors.push_back(call->input(i));
    }
  }
  if (tensors.empty()) {
    InsertMarkEvent(graph, path, kEnterKind);
    return;
  }
  Value* marked = InsertMark(graph, tensors, path, kEnterKind);
  Node* unpack = graph.insertNode(graph.createListUnpack(marked, tensors.size()));
  for (std::size_t i = 0; i < positions.size(); ++i) {
    unpack->output(i)->setType(tensors[i]->type());
    call->replaceInput(positions[i], unpack->output(i));
  }
}

// Routes the call's tensor output, or the tensors of its tuple output, through an exit marker.
// Returns false when no tensor leaves the call (the forward exit is still recorded).
bool MarkOutputs(Graph& graph, Node* call, Value* path) {
  Value* output = call->output();
  torch::jit::WithInsertPoint guard(call->next());
  if (IsTensor(output)) {
    Value* marked = InsertMark(graph, {output}, path, kExitKind);
    Node* unpack = graph.insertNode(graph.createListUnpack(marked, 1));
    unpack->output(0)->setType(output->type());
    output->replaceAllUsesAfterNodeWith(unpack, unpack->output(0));
    return true;
  }
  if (output->type()->kind() == c10::TypeKind::TupleType) {
    Node* split = graph.insertNode(graph.createTupleUnpack(output));
    std::vector<Value*> elements(split->outputs().begin(), split->outputs().end());
    std::vector<std::size_t> positions;
    std::vector<Value*> tensors;
    for (std::size_t i = 0; i < elements.size(); ++i) {
      if (IsTensor(elements[i])) {
        positions.push_back(i);
        tensors.push_back(elements[i]);
      }
    }
    if (!tensors.empty()) {
      // A tuple is marked as one event, as Python's single hook on a module's outputs.
      Value* marked = InsertMark(graph, tensors, path, kExitKind);
      Node* unpack = graph.insertNode(graph.createListUnpack(marked, tensors.size()));
      for (std::size_t i = 0; i < positions.size(); ++i) {
        unpack->output(i)->setType(tensors[i]->type());
        elements[positions[i]] = unpack->output(i);
      }
      Node* rebuilt = graph.insertNode(graph.createTuple(elements));
      output->replaceAllUsesAfterNodeWith(rebuilt, rebuilt->output());
      return true;
    }
  }
  InsertMarkEvent(graph, path, kExitKind);
  return false;
}

// Calls through an interface type, or on TorchScript class objects, have no instance path.
bool IsModuleInstance(const Value* callee) {
  const auto type = callee->type()->cast<c10::ClassType>();
  return type && type->is_module() && type->hasAttribute(kPathAttribute);
}

void CollectCalls(torch::jit::Block* block, const Value* self, std::vector<Node*>& submodule_calls,
                  std::set<std::string>& own_methods) {
  for (Node* node : block->nodes()) {
    if (node->kind() == c10::prim::CallMethod) {
      if (node->input(0) == self) {
        own_methods.insert(node->s(c10::attr::name));
      } else if (IsModuleInstance(node->input(0))) {
        submodule_calls.push_back(node);
      }
    }
    for (torch::jit::Block* inner : node->blocks()) {
      CollectCalls(inner, self, submodule_calls, own_methods);
    }
  }
}

}  // namespace

void AssignInstancePaths(torch::jit::Module& root) {
  for (const torch::jit::NameModule& named : root.named_modules()) {
    torch::jit::Module module = named.value;
    module.register_attribute(kPathAttribute, c10::StringType::get(), named.name);
  }
}

InstrumentStats Instrumenter::InstrumentCallsIn(const torch::jit::Module& module) {
  EnsureMarkerOpsRegistered();
  InstrumentStats stats;
  const std::string type = module.type()->name() ? module.type()->name()->qualifiedName() : "";
  if (!instrumented_types_.insert(type).second) return stats;

  std::vector<std::string> pending{"forward"};
  std::set<std::string> visited;
  while (!pending.empty()) {
    const std::string method = pending.back();
    pending.pop_back();
    if (!visited.insert(method).second) continue;
    auto found = module.find_method(method);
    if (!found) continue;
    std::shared_ptr<Graph> graph = found->graph();
    std::vector<Node*> calls;
    std::set<std::string> own_methods;
    CollectCalls(graph->block(), graph->inputs()[0], calls, own_methods);
    pending.insert(pending.end(), own_methods.begin(), own_methods.end());
    for (Node* call : calls) {
      Value* path;
      {
        torch::jit::WithInsertPoint guard(call);
        path = graph->insertGetAttr(call->input(0), kPathAttribute);
      }
      MarkInputs(*graph, call, path);
      if (!MarkOutputs(*graph, call, path)) ++stats.untensored_ends;
      ++stats.call_sites;
    }
  }
  return stats;
}

}  // namespace advisor
