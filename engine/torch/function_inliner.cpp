#include "engine/torch/function_inliner.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/passes/inliner.h>

namespace advisor {
namespace {

// One pass over `block`; returns whether it inlined anything (inlined bodies may hold calls).
bool InlineOnce(torch::jit::Block* block) {
  bool inlined = false;
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    torch::jit::Node* node = *it++;
    for (torch::jit::Block* nested : node->blocks()) inlined = InlineOnce(nested) || inlined;
    if (node->kind() != torch::jit::prim::CallFunction) continue;
    torch::jit::GraphFunction* callee = torch::jit::tryToGraphFunction(node);
    if (callee == nullptr) continue;  // a builtin or native function: nothing to inline
    // Input 0 is the function constant; the callee's graph takes only the arguments.
    node->removeInput(0);
    torch::jit::inlineCallTo(node, callee);
    inlined = true;
  }
  return inlined;
}

}  // namespace

void InlineFunctionCalls(torch::jit::Graph& graph) {
  while (InlineOnce(graph.block())) {
  }
}

}  // namespace advisor
