// Pattern-and-replacement rewrites of a loaded TorchScript module's graphs, with LibTorch's
// SubgraphRewriter, reporting where they changed something.
//
// TorchScript compiles one graph per module type, so a rewrite of one type's graph changes every
// instance of that type: the sites are reported as the instance paths of all of them. Rewrite
// before the module's first forward: executors cache their optimised plans.
#pragma once

#include <torch/csrc/jit/passes/subgraph_rewrite.h>
#include <torch/script.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace advisor {

// One IR pattern and its replacement, both `graph(...)` strings over the same inputs. The filter
// checks what the pattern cannot say (constant values, value types); the replacement must compute
// exactly what the pattern does for every match the filter accepts.
struct RewritePattern {
  std::string pattern;
  std::string replacement;
  torch::jit::MatchFilter filter;
};

struct GraphRewrite {
  std::string name;                      // the recipe's `rewrite` field, e.g. "gather-to-index"
  std::vector<RewritePattern> patterns;  // tried in order on every graph
};

// A method the rewrite changed, as TorchScript code: before (its functions already inlined, so
// that only the rewrite differs) and after.
struct RewrittenMethod {
  std::string module_type;  // qualified class name, e.g. "__torch__.WindowGather"
  std::string method;       // e.g. "forward"
  std::string before;
  std::string after;
};

struct RewriteOutcome {
  // Matches replaced, counted per module instance (a type's graph runs once per instance).
  int sites = 0;
  std::vector<std::string> module_paths;  // instances that run a changed graph, in module order
  std::vector<RewrittenMethod> methods;   // each changed method once, in module order
  std::string why_no_site;  // where a rewrite can say more than "no site" (crop-first)
};

// The module path a report shows for the root module.
inline constexpr const char* kRootModulePath = "(root)";

// The method's TorchScript code as `module.code` prints it, for `graph` (its own by default).
std::string MethodCode(const torch::jit::Function& method,
                       std::shared_ptr<torch::jit::Graph> graph = nullptr);

// Rewrites every method of every module type in `root` (functions they call are inlined first).
RewriteOutcome ApplyGraphRewrite(torch::jit::Module& root, const GraphRewrite& rewrite);

// The constant a pattern input was matched to, e.g. the `dim` of a gather; nullopt when the
// matched value is not a constant.
std::optional<c10::IValue> MatchedConstant(
    const torch::jit::Match& match,
    const std::unordered_map<std::string, torch::jit::Value*>& pattern_values,
    const std::string& name);

// The type of the value a pattern input was matched to.
c10::TypePtr MatchedType(const torch::jit::Match& match,
                         const std::unordered_map<std::string, torch::jit::Value*>& pattern_values,
                         const std::string& name);

}  // namespace advisor
