// The graph rewrites a recipe can name in its `rewrite` field (BuiltinRewrites() in
// engine/autotest/recipe.h), looked up by that name.
#pragma once

#include <string>

#include <torch/script.h>

#include "engine/model_candidate/graph_rewrite.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// "" when the rewrite `name` can run with this LibTorch; otherwise why not, starting with
// "not applicable" or "not implemented".
std::string WhyRewriteUnavailable(const std::string& name);

// Throws std::invalid_argument for a name that is no built-in rewrite. Check
// WhyRewriteUnavailable first.
GraphRewrite BuiltinRewrite(const std::string& name);

// Applies the built-in rewrite `name` to `module`: crop-first to the input stage of `spec`, the
// pattern rewrites (BuiltinRewrite) to every method. Check WhyRewriteUnavailable first.
RewriteOutcome ApplyBuiltinRewrite(const std::string& name, torch::jit::Module& module,
                                   const WorkloadSpec& spec);

}  // namespace advisor
