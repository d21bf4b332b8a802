#include "engine/model_candidate/crop_first.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/jit.h>

#include <unordered_map>

#include "engine/model_candidate/crop_site.h"

namespace advisor {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// What the rewritten graph computes at the crop, as TorchScript the worker compiles once and
// inlines at each site. Bounds follow aten::slice's and aten::narrow's own rules, so the crop is
// the same rows and columns; the window is the crop widened by the margin, clamped to the image
// (padded ops see the image's border there too) or, for roll, wrapping around it.
constexpr const char* kHelpers = R"TS(
def slice_start(start: Optional[int], end: Optional[int], size: int) -> int:
    s = 0 if start is None else start
    if s < 0:
        s += size
    return min(max(s, 0), size)

def slice_end(start: Optional[int], end: Optional[int], size: int) -> int:
    s = 0 if start is None else start
    if s < 0:
        s += size
    s = min(max(s, 0), size)
    e = size if end is None else end
    if e < 0:
        e += size
    return min(max(e, s), size)

def narrow_start(start: int, size: int) -> int:
    return start + size if start < 0 else start

def plus(a: int, b: int) -> int:
    return a + b

def times(a: int, b: int) -> int:
    return a * b

def larger(a: int, b: int) -> int:
    return max(a, b)

def magnitude(value: int) -> int:
    return abs(value)

def range_reach(low: int, high: int) -> int:
    return max(abs(low), abs(high))

def conv_reach(weight: Tensor, padding: List[int], dilation: List[int]) -> int:
    reach = 0
    for i in range(2):
        p = padding[min(i, len(padding) - 1)]
        d = dilation[min(i, len(dilation) - 1)]
        assert 2 * p == d * (weight.size(2 + i) - 1), (
            "crop-first: a conv2d before the crop changes the image's size")
        reach = max(reach, p)
    return reach

def conv_same_reach(weight: Tensor, dilation: List[int]) -> int:
    reach = 0
    for i in range(2):
        total = dilation[min(i, len(dilation) - 1)] * (weight.size(2 + i) - 1)
        reach = max(reach, total - total // 2)
    return reach

def image_size(x: Tensor, dim: int) -> int:
    return x.size(dim) if x.dim() >= -dim else 1

def window_rows(size: int, start: int, end: int, margin: int, circular: bool,
                like: Tensor) -> Tensor:
    if circular and margin > 0 and size > 0:
        return torch.remainder(torch.arange(start - margin, end + margin, device=like.device), size)
    return torch.arange(max(start - margin, 0), min(end + margin, size), device=like.device)

def window_offset(size: int, start: int, margin: int, circular: bool) -> int:
    if circular and margin > 0 and size > 0:
        return margin
    return start - max(start - margin, 0)

def take(x: Tensor, dim: int, size: int, rows: Tensor) -> Tensor:
    if x.dim() < -dim or x.size(dim) == 1:
        return x
    assert x.size(dim) == size, (
        "crop-first: a tensor the transforms combine with the image has another size")
    return x.index_select(dim, rows)

def crop(x: Tensor, dim: int, offset: int, start: int, end: int) -> Tensor:
    return x.narrow(dim, offset, end - start)
)TS";

const torch::jit::CompilationUnit& Helpers() {
  static const std::shared_ptr<torch::jit::CompilationUnit> unit = torch::jit::compile(kHelpers);
  return *unit;
}

// Emits the rewrite of one site before its first crop node.
class SiteRewriter {
 public:
  SiteRewriter(torch::jit::Graph& graph, const CropSite& site) : graph_(graph), site_(site) {}

  // Returns the new crop's last node.
  Node* Rewrite() {
    Value* cropped = nullptr;
    {
      torch::jit::WithInsertPoint at(site_.first);
      Value* const margin = Margin();
      Value* const circular = graph_.insertConstant(site_.circular);
      struct Window {
        Value* dim;
        Value* size;
        Value* start;
        Value* end;
        Value* rows;
        Value* offset;
      };
      std::vector<Window> windows;
      for (const SpatialCrop& crop : site_.spatial) {
        Window window;
        window.dim = graph_.insertConstant(static_cast<std::int64_t>(crop.dim));
        window.size = nullptr;
        for (Value* source : site_.sources) {
          Value* size = Call("image_size", {source, window.dim});
          window.size = window.size ? Call("larger", {window.size, size}) : size;
        }
        Node* node = crop.node;
        if (node->kind().toQualString() == std::string("aten::narrow")) {
          window.start = Call("narrow_start", {Hoist(node->input(2)), window.size});
          window.end = Call("plus", {window.start, Hoist(node->input(3))});
        } else {
          Value* start = Hoist(node->input(2));
          Value* end = Hoist(node->input(3));
          window.start = Call("slice_start", {start, end, window.size});
          window.end = Call("slice_end", {start, end, window.size});
        }
        window.rows = Call("window_rows", {window.size, window.start, window.end, margin, circular,
                                           site_.sources.front()});
        window.offset = Call("window_offset", {window.size, window.start, margin, circular});
        windows.push_back(window);
      }
      // The inputs and the tensors combined with them, cut to the window.
      std::unordered_map<Value*, Value*> moved;
      for (const std::vector<Value*>* list : {&site_.sources, &site_.operands}) {
        for (Value* value : *list) {
          Value* windowed = value;
          for (const Window& window : windows) {
            windowed = Call("take", {windowed, window.dim, window.size, window.rows});
          }
          moved[value] = windowed;
        }
      }
      for (Node* node : site_.moved) {
        Node* clone = graph_.createClone(node, [&](Value* value) {
          const auto found = moved.find(value);
          return found == moved.end() ? value : found->second;
        });
        graph_.insertNode(clone);
        for (std::size_t i = 0; i < node->outputs().size(); ++i) {
          moved[node->outputs()[i]] = clone->outputs()[i];
        }
      }
      cropped = moved.at(site_.cropped);
      for (const Window& window : windows) {
        cropped = Call("crop", {cropped, window.dim, window.offset, window.start, window.end});
      }
    }
    // The old crops of the image's dims go (the chain's other slices stay, on the new crop), and
    // with them the transforms on the whole image.
    for (const SpatialCrop& crop : site_.spatial) {
      crop.node->output()->replaceAllUsesWith(crop.node->input(0));
      crop.node->destroy();
    }
    site_.cropped->replaceAllUsesAfterNodeWith(cropped->node(), cropped);
    for (auto node = site_.moved.rbegin(); node != site_.moved.rend(); ++node) (*node)->destroy();
    return cropped->node();
  }

 private:
  Value* Call(const char* helper, std::vector<Value*> arguments) {
    const torch::jit::Function& function = Helpers().get_function(helper);
    return torch::jit::insertGraph(graph_, *torch::jit::toGraphFunction(function).graph(),
                                   arguments)
        .at(0);
  }

  // `value` where the crop begins: itself when it is defined before, else a copy of the pure
  // arithmetic that computes it (crop_site.h's Computable).
  Value* Hoist(Value* value) {
    Node* node = value->node();
    if (node->owningBlock() == graph_.block() && node->isBefore(site_.first)) return value;
    const auto found = hoisted_.find(value);
    if (found != hoisted_.end()) return found->second;
    Node* copy = graph_.createClone(node, [this](Value* input) { return Hoist(input); });
    graph_.insertNode(copy);
    for (std::size_t i = 0; i < node->outputs().size(); ++i) {
      hoisted_[node->outputs()[i]] = copy->outputs()[i];
    }
    return hoisted_.at(value);
  }

  // The sum of every neighbour op's reach.
  Value* Margin() {
    Value* margin = graph_.insertConstant(static_cast<std::int64_t>(0));
    for (const CropReach& reach : site_.reach) {
      Value* own = graph_.insertConstant(reach.constant);
      for (Value* shift : reach.shifts) {
        own = Call("larger", {own, Call("magnitude", {Hoist(shift)})});
      }
      for (const auto& range : reach.ranges) {
        own = Call("larger", {own, Call("range_reach", {Hoist(range.first), Hoist(range.second)})});
      }
      if (reach.conv != nullptr) {
        Node* conv = reach.conv;
        Value* weight = Hoist(conv->input(1));
        Value* dilation = Hoist(conv->input(5));
        const bool same = conv->input(4)->type()->kind() == c10::TypeKind::StringType;
        own = Call("larger", {own, same ? Call("conv_same_reach", {weight, dilation})
                                        : Call("conv_reach", {weight, Hoist(conv->input(4)),
                                                              dilation})});
      }
      for (Value* trips : reach.trip_counts) own = Call("times", {own, Hoist(trips)});
      margin = Call("plus", {margin, own});
    }
    return margin;
  }

  torch::jit::Graph& graph_;
  const CropSite& site_;
  std::unordered_map<Value*, Value*> hoisted_;
};

bool SetsAttribute(const torch::jit::Block* block, const std::string& name) {
  for (const Node* node : block->nodes()) {
    if (node->kind() == torch::jit::prim::SetAttr && node->s(torch::jit::attr::name) == name) {
      return true;
    }
    for (const torch::jit::Block* inner : node->blocks()) {
      if (SetsAttribute(inner, name)) return true;
    }
  }
  return false;
}

// Reads the module's plain settings (a string, number or flag on self that no method of its type
// sets) as the constants they are, and folds what they decide: a stage that branches on
// `self.variant` or computes offsets from `self.side` then has its crop at the top of the graph,
// where the search looks. The rewritten method keeps the values they had.
void FoldSettings(std::shared_ptr<torch::jit::Graph> graph, const torch::jit::Module& module) {
  const c10::ClassTypePtr type = module.type();
  std::vector<Node*> reads;
  for (const torch::jit::Use& use : graph->inputs()[0]->uses()) {
    if (use.user->kind() == torch::jit::prim::GetAttr) reads.push_back(use.user);
  }
  for (Node* read : reads) {
    const std::string name = read->s(torch::jit::attr::name);
    const c10::IValue value = module.attr(name);
    if (!value.isString() && !value.isInt() && !value.isDouble() && !value.isBool()) continue;
    bool set = false;
    for (torch::jit::Function* method : type->methods()) {
      set = set || SetsAttribute(torch::jit::toGraphFunction(*method).graph()->block(), name);
    }
    if (set) continue;
    torch::jit::WithInsertPoint at(read);
    read->output()->replaceAllUsesWith(graph->insertConstant(value));
    read->destroy();
  }
  torch::jit::ConstantPropagation(graph);
}

// The rank of each of the stage method's inputs: the workload's inputs, then its target.
std::vector<int> InputRanks(const WorkloadSpec& spec) {
  std::vector<int> ranks;
  for (const TensorSpec& input : spec.inputs) ranks.push_back(static_cast<int>(input.shape.size()));
  ranks.push_back(static_cast<int>(spec.target.shape.size()));
  return ranks;
}

}  // namespace

RewriteOutcome ApplyCropFirst(torch::jit::Module& module, const WorkloadSpec& spec) {
  RewriteOutcome outcome;
  if (!spec.input_stage) {
    outcome.why_no_site = "the workload has no input stage";
    return outcome;
  }
  const std::string& name = spec.input_stage->method;
  torch::jit::Function* method = module.type()->findMethod(name);
  if (method == nullptr) {
    outcome.why_no_site = "the model has no input-stage method \"" + name + "\"";
    return outcome;
  }
  const std::shared_ptr<torch::jit::Graph> graph = torch::jit::toGraphFunction(*method).graph();
  // Inlined and folded on both sides of the code diff, so that it shows the move alone.
  torch::jit::Inline(*graph);
  FoldSettings(graph, module);
  const std::shared_ptr<torch::jit::Graph> unchanged = graph->copy();

  // Each rewrite changes the graph, so the search runs again until no crop is left to move. Each
  // rewrite replaces one crop by one the search skips (`made`), so this ends.
  std::vector<const Node*> made;
  std::vector<std::string> refused;
  for (;;) {
    CropSearch search = FindCropSites(*graph, InputRanks(spec), made);
    if (refused.empty()) refused = search.refused;
    if (search.sites.empty()) break;
    made.push_back(SiteRewriter(*graph, search.sites.front()).Rewrite());
    ++outcome.sites;
  }
  if (outcome.sites == 0) {
    outcome.why_no_site =
        refused.empty()
            ? "\"" + name + "\" has no crop of the last two dims after a transform of its inputs"
            : refused.front();
    return outcome;
  }
  torch::jit::EliminateDeadCode(graph);
  outcome.module_paths.push_back(kRootModulePath);
  outcome.methods.push_back({module.type()->name() ? module.type()->name()->qualifiedName() : "",
                             name, MethodCode(*method, unchanged), MethodCode(*method)});
  return outcome;
}

}  // namespace advisor
