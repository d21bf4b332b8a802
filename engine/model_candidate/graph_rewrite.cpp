#include "engine/model_candidate/graph_rewrite.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/subgraph_matcher.h>
#include <torch/csrc/jit/serialization/python_print.h>

#include <map>

#include "engine/torch/function_inliner.h"

namespace advisor {
namespace {

// Rewrites the graphs of one module type; returns the matches replaced, and adds the methods it
// changed to `methods`.
int RewriteType(const c10::ClassTypePtr& type, const GraphRewrite& rewrite,
                std::vector<RewrittenMethod>& methods) {
  int replaced = 0;
  for (torch::jit::Function* method : type->methods()) {
    std::shared_ptr<torch::jit::Graph> graph = torch::jit::toGraphFunction(*method).graph();
    InlineFunctionCalls(*graph);
    const int replaced_before = replaced;
    const std::shared_ptr<torch::jit::Graph> unchanged = graph->copy();
    for (const RewritePattern& pattern : rewrite.patterns) {
      torch::jit::SubgraphRewriter rewriter;
      rewriter.RegisterRewritePattern(pattern.pattern, pattern.replacement);
      // The filter sees each candidate match once; the matcher allows no outside uses of a
      // match's inner values, so accepted matches cannot overlap and all of them are replaced.
      rewriter.runOnGraph(
          graph, [&](const torch::jit::Match& match,
                     const std::unordered_map<std::string, torch::jit::Value*>& pattern_values) {
            const bool accepted = !pattern.filter || pattern.filter(match, pattern_values);
            if (accepted) ++replaced;
            return accepted;
          });
    }
    if (replaced > replaced_before) {
      methods.push_back({type->name() ? type->name()->qualifiedName() : "", method->name(),
                         MethodCode(*method, unchanged), MethodCode(*method)});
    }
  }
  return replaced;
}

}  // namespace

std::string MethodCode(const torch::jit::Function& method,
                       std::shared_ptr<torch::jit::Graph> graph) {
  std::vector<c10::IValue> constants;
  torch::jit::PrintDepsTable dependencies;
  torch::jit::PythonPrint printer(constants, dependencies);
  if (graph) {
    printer.printMethod(torch::jit::GraphFunction(method.qualname(), std::move(graph), nullptr));
  } else {
    printer.printMethod(method);
  }
  return printer.str();
}

RewriteOutcome ApplyGraphRewrite(torch::jit::Module& root, const GraphRewrite& rewrite) {
  std::map<const c10::ClassType*, int> replaced_by_type;  // each type is rewritten once
  RewriteOutcome outcome;
  for (const torch::jit::NameModule& named : root.named_modules()) {
    const c10::ClassTypePtr type = named.value.type();
    auto found = replaced_by_type.find(type.get());
    if (found == replaced_by_type.end()) {
      found = replaced_by_type.emplace(type.get(), RewriteType(type, rewrite, outcome.methods))
                  .first;
    }
    if (found->second == 0) continue;
    outcome.sites += found->second;
    outcome.module_paths.push_back(named.name.empty() ? kRootModulePath : named.name);
  }
  return outcome;
}

std::optional<c10::IValue> MatchedConstant(
    const torch::jit::Match& match,
    const std::unordered_map<std::string, torch::jit::Value*>& pattern_values,
    const std::string& name) {
  // LibTorch 1.13 returns c10::optional, 2.x std::optional: unwrap explicitly, since IValue's
  // own constructor would turn an empty c10::optional into a present None.
  const auto constant = torch::jit::toIValue(match.values_map.at(pattern_values.at(name)));
  if (!constant) return std::nullopt;
  return *constant;
}

c10::TypePtr MatchedType(const torch::jit::Match& match,
                         const std::unordered_map<std::string, torch::jit::Value*>& pattern_values,
                         const std::string& name) {
  return match.values_map.at(pattern_values.at(name))->type();
}

}  // namespace advisor
