#include "engine/torch/seeded_method.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <array>
#include <functional>

namespace advisor {
namespace {

// Ops that draw random numbers without a generator argument: they would read the process-wide
// generator, which worker threads share, so their values would depend on thread timing.
constexpr std::array<const char*, 10> kUnseedableOps = {
    "aten::rand_like",     "aten::randn_like",
    "aten::randint_like",  "aten::dropout",
    "aten::dropout_",      "aten::feature_dropout",
    "aten::alpha_dropout", "aten::feature_alpha_dropout",
    "aten::rrelu",         "aten::native_dropout"};

void ForEachNode(torch::jit::Block* block, const std::function<void(torch::jit::Node*)>& visit) {
  for (torch::jit::Node* node : block->nodes()) {
    visit(node);
    for (torch::jit::Block* inner : node->blocks()) ForEachNode(inner, visit);
  }
}

// Where `node`'s op takes a generator: its own "generator" argument, or the one of the overload
// that adds it (the script compiler picks aten::rand(size, ...) for torch.rand(shape), which has
// aten::rand.generator(size, *, generator, ...) beside it); -1 when the op takes none.
int GeneratorArgument(const torch::jit::Node& node, const c10::FunctionSchema& schema) {
  const std::vector<c10::Argument>& own = schema.arguments();
  for (std::size_t i = 0; i < own.size(); ++i) {
    if (own[i].name() == "generator") return static_cast<int>(i);
  }
  for (const std::shared_ptr<torch::jit::Operator>& op :
       torch::jit::getAllOperatorsFor(node.kind())) {
    const std::vector<c10::Argument>& with = op->schema().arguments();
    if (with.size() != own.size() + 1) continue;
    for (std::size_t g = 0; g < with.size(); ++g) {
      if (with[g].name() != "generator") continue;
      bool same_otherwise = true;
      for (std::size_t i = 0; i < own.size() && same_otherwise; ++i) {
        const c10::Argument& other = with[i < g ? i : i + 1];
        same_otherwise = other.name() == own[i].name() && *other.type() == *own[i].type();
      }
      if (same_otherwise) return static_cast<int>(g);
    }
  }
  return -1;
}

std::string Plural(std::size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

SeededMethod::SeededMethod(const torch::jit::Module& module, const WorkloadSpec& spec)
    : module_(module) {
  const std::string& name = spec.input_stage ? spec.input_stage->method : std::string();
  where_ = "input_stage.method \"" + name + "\"";
  arity_ = spec.inputs.size() + 1;
  const auto fail = [&](const std::string& problem) {
    throw InputStageError(where_ + ": " + problem);
  };

  const auto method = module.find_method(name);  // c10::optional on 1.13, std::optional on 2.x
  if (!method) {
    fail(
        "the model has no such method; define it on the model's class with @torch.jit.export "
        "(and script the model: tracing drops it)");
  }
  const c10::FunctionSchema& schema = method->function().getSchema();
  const std::size_t arguments = schema.arguments().size() - 1;  // after self
  const std::string expected = Plural(arity_, "tensor") + " (the workload's " +
                               Plural(spec.inputs.size(), "input") + ", then the target)";
  if (arguments != arity_)
    fail("takes " + Plural(arguments, "argument") + ", expected " + expected);
  const c10::TypePtr returned =
      schema.returns().empty() ? c10::NoneType::get() : schema.returns().front().type();
  const auto tuple = returned->cast<c10::TupleType>();
  const bool tensors_only = tuple && std::all_of(tuple->elements().begin(), tuple->elements().end(),
                                                 [](const c10::TypePtr& t) {
                                                   return t->kind() == c10::TypeKind::TensorType;
                                                 });
  if (!tuple || tuple->elements().size() != arity_ || !tensors_only) {
    fail("returns " + returned->annotation_str() + ", expected a tuple of " + expected);
  }

  // A private copy with every call inlined, so that random ops in helpers are reached too.
  std::shared_ptr<torch::jit::Graph> graph = method->graph()->copy();
  torch::jit::Inline(*graph);
  torch::jit::Value* generator = graph->addInput("generator")->setType(c10::GeneratorType::get());
  ForEachNode(graph->block(), [&](torch::jit::Node* node) {
    const std::string kind = node->kind().toQualString();
    if (std::find(kUnseedableOps.begin(), kUnseedableOps.end(), kind) != kUnseedableOps.end()) {
      fail(kind +
           " draws from the process-wide generator, which advisor cannot seed per batch; "
           "draw with torch.rand/randn/randint/bernoulli instead");
    }
    const c10::FunctionSchema* op = node->maybeSchema();
    if (op == nullptr) return;
    const int at = GeneratorArgument(*node, *op);
    if (at < 0) return;
    const bool own = static_cast<std::size_t>(at) < op->arguments().size() &&
                     op->arguments()[at].name() == "generator";
    if (!own) {
      node->insertInput(at, generator);
    } else if (node->input(at)->mustBeNone()) {
      node->replaceInput(at, generator);
    }
    if (node->maybeSchema() == nullptr) {
      fail(kind + ": no overload takes the batch's generator");  // a LibTorch without it
    }
  });
  function_ = std::make_shared<torch::jit::GraphFunction>(
      c10::QualifiedName("advisor.input_stage." + name), graph, nullptr);
}

std::vector<torch::Tensor> SeededMethod::Run(const std::vector<torch::Tensor>& tensors,
                                             std::uint64_t seed) const {
  torch::NoGradGuard no_grad;
  torch::jit::Stack stack;
  stack.emplace_back(module_._ivalue());
  for (const torch::Tensor& tensor : tensors) stack.emplace_back(tensor);
  stack.emplace_back(at::detail::createCPUGenerator(seed));
  function_->run(stack);
  std::vector<torch::Tensor> batch;
  for (const c10::IValue& value : stack.back().toTupleRef().elements()) {
    batch.push_back(value.toTensor());
  }
  return batch;
}

std::string InputStageProblem(const torch::jit::Module& module, const WorkloadSpec& spec) {
  if (!spec.input_stage) return "";
  try {
    SeededMethod method(module, spec);
  } catch (const InputStageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace advisor
