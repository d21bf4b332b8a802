// Inlining the free functions a TorchScript graph calls, and nothing else.
//
// A pattern that sits in a helper function (timm's PatchDropout gathers inside
// `patch_dropout_forward`, which its forward calls) is not in the method's own graph, so graph
// rewrites inline those calls first. torch::jit::Inline would also inline submodule method calls,
// moving a child's ops into its parent's graph, where a rewrite could no longer say which module
// instance it changed; this inliner leaves prim::CallMethod alone.
#pragma once

#include <torch/csrc/jit/ir/ir.h>

namespace advisor {

// Replaces every prim::CallFunction in `graph` (nested blocks and functions called by inlined
// functions included) by a copy of the callee's graph. The callees themselves are not changed.
void InlineFunctionCalls(torch::jit::Graph& graph);

}  // namespace advisor
