#include "engine/model_candidate/crop_site.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <unordered_set>

#include "engine/torch/source_location.h"

namespace advisor {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

// Ops that compute each output element from the same element of their tensor inputs (after
// broadcasting): they give the same pixels whether they run before or after a crop.
const std::unordered_set<std::string>& PointwiseOps() {
  static const std::unordered_set<std::string> ops = {
      "aten::abs",         "aten::neg",         "aten::add",          "aten::sub",
      "aten::mul",         "aten::div",         "aten::rsub",         "aten::remainder",
      "aten::fmod",        "aten::pow",         "aten::maximum",      "aten::minimum",
      "aten::clamp",       "aten::clamp_min",   "aten::clamp_max",    "aten::gt",
      "aten::lt",          "aten::ge",          "aten::le",           "aten::eq",
      "aten::ne",          "aten::logical_and", "aten::logical_or",   "aten::logical_xor",
      "aten::logical_not", "aten::__and__",     "aten::__or__",       "aten::__xor__",
      "aten::bitwise_and", "aten::bitwise_or",  "aten::bitwise_xor",  "aten::bitwise_not",
      "aten::where",       "aten::sigmoid",     "aten::relu",         "aten::tanh",
      "aten::exp",         "aten::log",         "aten::sqrt",         "aten::rsqrt",
      "aten::floor",       "aten::ceil",        "aten::round",        "aten::sign",
      "aten::contiguous",   "aten::clone",
      "aten::detach",      "aten::masked_fill", "aten::lerp",         "aten::square",
      "aten::reciprocal",  "aten::sin",         "aten::cos",          "aten::log1p",
      "aten::expm1",       "aten::hardtanh",    "aten::leaky_relu",   "aten::gelu"};
  return ops;
}

bool MayHoldTensor(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
      return true;
    case c10::TypeKind::ListType:
      return MayHoldTensor(type->expectRef<c10::ListType>().getElementType());
    case c10::TypeKind::OptionalType:
      return MayHoldTensor(type->expectRef<c10::OptionalType>().getElementType());
    case c10::TypeKind::TupleType: {
      const auto& elements = type->expectRef<c10::TupleType>().elements();
      return std::any_of(elements.begin(), elements.end(), MayHoldTensor);
    }
    default:
      return false;
  }
}

bool IsTensor(const Value* value) { return value->type()->kind() == c10::TypeKind::TensorType; }

// Whether `value` is defined inside `node` (in one of its blocks, at any depth).
bool DefinedWithin(const Value* value, const Node* node) {
  for (const Block* block = value->node()->owningBlock(); block != nullptr;
       block = block->owningNode() ? block->owningNode()->owningBlock() : nullptr) {
    if (block->owningNode() == node) return true;
  }
  return false;
}

// The node of the graph's top block that holds `node` (itself, if it is there).
const Node* TopLevel(const Node* node, const Block* top) {
  while (node->owningBlock() != top) node = node->owningBlock()->owningNode();
  return node;
}

// Values `node` reads, its own inputs and those its blocks read from outside it.
void CollectReads(Node* node, const Node* outer, std::vector<Value*>& reads) {
  for (Value* input : node->inputs()) {
    if (node == outer || !DefinedWithin(input, outer)) reads.push_back(input);
  }
  for (Block* block : node->blocks()) {
    for (Node* inner : block->nodes()) CollectReads(inner, outer, reads);
    for (Value* returned : block->outputs()) {
      if (!DefinedWithin(returned, outer)) reads.push_back(returned);
    }
  }
}

std::vector<Value*> ReadsOf(Node* node) {
  std::vector<Value*> reads;
  CollectReads(node, node, reads);
  return reads;
}

std::string Describe(const Node* node) {
  std::string text = node->kind().toQualString();
  if (const std::optional<SourceLocation> at = LocationOf(node->sourceRange())) {
    text += " (" + at->file + ":" + std::to_string(at->line) + ")";
  }
  return text;
}

std::optional<std::int64_t> ConstantInt(const Value* value) {
  const auto constant = torch::jit::toIValue(value);
  if (!constant || !constant->isInt()) return std::nullopt;
  return constant->toInt();
}

// A list of ints the graph spells as a constant or as a list of constants ([3, 3]).
std::optional<std::vector<std::int64_t>> ConstantInts(const Value* value) {
  if (value->node()->kind() == torch::jit::prim::ListConstruct) {
    std::vector<std::int64_t> values;
    for (const Value* element : value->node()->inputs()) {
      const std::optional<std::int64_t> constant = ConstantInt(element);
      if (!constant) return std::nullopt;
      values.push_back(*constant);
    }
    return values;
  }
  const auto constant = torch::jit::toIValue(value);
  if (!constant || !constant->isIntList()) return std::nullopt;
  return constant->toIntVector();
}

// Whether `value` can be had where the crop begins (`first`, a node of the top block `top`):
// defined before it, a constant, or pure arithmetic on such values (`top + h` computed between
// the crop's slices, a loop's range computed inside its parent loop).
bool Computable(const Value* value, const Block* top, const Node* first) {
  const Node* node = value->node();
  if (node->kind() == torch::jit::prim::Constant) return true;
  if (node->owningBlock() == top && node->isBefore(first)) return true;
  if (node->kind() == torch::jit::prim::Param || !node->blocks().empty()) return false;
  if (node->isNondeterministic() || node->hasSideEffects() || MayHoldTensor(value->type())) {
    return false;
  }
  return std::all_of(node->inputs().begin(), node->inputs().end(),
                     [&](const Value* input) { return Computable(input, top, first); });
}

// The values that hold the stage's data: its tensor inputs and every tensor computed from them
// (through loops' carried values and branches' outputs).
class DataFlow {
 public:
  explicit DataFlow(torch::jit::Graph& graph) {
    for (std::size_t i = 1; i < graph.inputs().size(); ++i) {
      if (IsTensor(graph.inputs()[i])) data_.insert(graph.inputs()[i]);
    }
    Mark(graph.block());
  }
  bool Holds(const Value* value) const { return data_.count(value) > 0; }

 private:
  void Mark(Block* block) {
    for (Node* node : block->nodes()) Mark(node);
  }
  void MarkIf(Value* value, bool is_data) {
    if (is_data && MayHoldTensor(value->type())) data_.insert(value);
  }
  void Mark(Node* node) {
    if (node->kind() == torch::jit::prim::Loop) {
      Block* body = node->blocks()[0];
      const std::size_t carried = node->outputs().size();
      // Carried values are data when they start as data or the body makes them data: repeat
      // until nothing changes (each round marks at least one more value, or stops).
      for (std::size_t round = 0; round <= carried; ++round) {
        bool changed = false;
        for (std::size_t k = 0; k < carried; ++k) {
          Value* param = body->inputs()[k + 1];
          const bool is_data = Holds(node->inputs()[k + 2]) || Holds(body->outputs()[k + 1]);
          if (is_data && !Holds(param) && MayHoldTensor(param->type())) {
            data_.insert(param);
            changed = true;
          }
        }
        Mark(body);
        if (!changed && round > 0) break;
      }
      for (std::size_t k = 0; k < carried; ++k) {
        MarkIf(node->outputs()[k], Holds(body->inputs()[k + 1]) || Holds(body->outputs()[k + 1]));
      }
      return;
    }
    if (node->kind() == torch::jit::prim::If) {
      for (Block* block : node->blocks()) Mark(block);
      for (std::size_t k = 0; k < node->outputs().size(); ++k) {
        bool is_data = false;
        for (Block* block : node->blocks()) is_data = is_data || Holds(block->outputs()[k]);
        MarkIf(node->outputs()[k], is_data);
      }
      return;
    }
    for (Block* block : node->blocks()) Mark(block);
    const std::vector<Value*> reads = ReadsOf(node);
    const bool reads_data = std::any_of(reads.begin(), reads.end(),
                                        [this](const Value* v) { return Holds(v); });
    for (Value* output : node->outputs()) MarkIf(output, reads_data);
  }

  std::unordered_set<const Value*> data_;
};

// Dim `dim` of a tensor of `rank` counted from the end (-1 the last); nullopt when not constant.
std::optional<int> FromEnd(const Value* dim, int rank) {
  const std::optional<std::int64_t> value = ConstantInt(dim);
  if (!value) return std::nullopt;
  return static_cast<int>(*value < 0 ? *value : *value - rank);
}

bool IsSpatial(int from_end) { return from_end == -2 || from_end == -1; }

// A slice or narrow of a tensor (aten::slice also slices lists and strings).
bool IsCrop(const Node* node) {
  const std::string kind = node->kind().toQualString();
  return (kind == "aten::slice" || kind == "aten::narrow") && IsTensor(node->input(0));
}

// The checks of the moved nodes, collecting what the rewrite needs: the reach of each neighbour
// op, the operands to crop alongside, whether roll or padding decides the border.
class MovedNodes {
 public:
  MovedNodes(const DataFlow& data, const Block* top, const Node* first, int rank, CropSite& site)
      : data_(data), top_(top), first_(first), rank_(rank), site_(site) {}

  // "" when every node is one the rewrite can move; otherwise why not.
  std::string Check(Node* node, std::vector<Node*>& loops) {
    const bool reads_data =
        std::any_of(node->inputs().begin(), node->inputs().end(),
                    [this](const Value* v) { return data_.Holds(v); });
    const std::string kind = node->kind().toQualString();
    if (node->kind() == torch::jit::prim::Loop || node->kind() == torch::jit::prim::If) {
      loops.push_back(node);
      for (Block* block : node->blocks()) {
        for (Node* inner : block->nodes()) {
          const std::string problem = Check(inner, loops);
          if (!problem.empty()) return problem;
        }
      }
      loops.pop_back();
      return "";
    }
    if (!node->blocks().empty()) return Describe(node) + " is not a transform the rewrite can move";
    if (!reads_data) {
      // Index arithmetic and constants inside a moved loop run again where the loop moves to;
      // nothing there may draw random numbers or act on the world.
      if (node->isNondeterministic() || node->hasSideEffects()) {
        return Describe(node) + " runs inside the transforms and would move with them";
      }
      return "";
    }
    if (node->kind() == torch::jit::prim::ListConstruct) return Operands(node, 0);
    // The tensor that aten::to and type_as take lends only its dtype and device.
    if (kind == "aten::to" || kind == "aten::type_as") return "";
    if (PointwiseOps().count(kind)) return Operands(node, 0);
    if (IsCrop(node) || kind == "aten::cat") {
      const std::optional<int> dim = FromEnd(node->input(1), rank_);
      if (!dim || IsSpatial(*dim)) {
        return Describe(node) + " crops or joins along an image dimension before the crop";
      }
      return kind == "aten::cat" ? Operands(node, 0) : "";
    }
    if (kind == "aten::max_pool2d" || kind == "aten::avg_pool2d") return Pool(node, loops);
    if (kind == "aten::conv2d") return Conv(node, loops);
    if (kind == "aten::roll") return Roll(node, loops);
    return Describe(node) + " is not a transform the rewrite can move";
  }

 private:
  // Tensors that are not data combine with the data pixel by pixel: the rewrite crops them the
  // same way (where they have the image's size) before the moved nodes run.
  std::string Operands(Node* node, std::size_t from) {
    for (std::size_t i = from; i < node->inputs().size(); ++i) {
      Value* input = node->inputs()[i];
      if (!IsTensor(input) || data_.Holds(input)) continue;
      if (input->node()->owningBlock() != top_ || !input->node()->isBefore(first_)) {
        return Describe(node) + " combines the image with a tensor made inside the transforms";
      }
      if (std::find(site_.operands.begin(), site_.operands.end(), input) == site_.operands.end()) {
        site_.operands.push_back(input);
      }
    }
    return "";
  }

  // The loops that would apply `node` again to its own output: those that hold the definition of
  // its data input.
  std::string Repeats(Node* node, const std::vector<Node*>& loops, CropReach& reach) {
    for (Node* loop : loops) {
      if (loop->kind() != torch::jit::prim::Loop || !DefinedWithin(node->input(0), loop)) continue;
      const std::optional<std::int64_t> trips = ConstantInt(loop->input(0));
      if (trips && *trips == std::numeric_limits<std::int64_t>::max()) {
        return Describe(node) + " repeats in a while loop, whose reach has no bound";
      }
      reach.trip_counts.push_back(loop->input(0));
    }
    return "";
  }

  std::string Padded(Node* node, const std::vector<Node*>& loops, CropReach reach) {
    const std::string problem = Repeats(node, loops, reach);
    if (!problem.empty()) return problem;
    if (site_.circular) return Describe(node) + " pads the border where roll wraps it around";
    padded_ = true;
    site_.reach.push_back(std::move(reach));
    return "";
  }

  // Stride 1 and padding that keeps the size: 2 * padding == dilation * (kernel - 1) per dim.
  std::string Pool(Node* node, const std::vector<Node*>& loops) {
    const bool max = node->kind().toQualString() == std::string("aten::max_pool2d");
    const auto kernel = ConstantInts(node->input(1));
    const auto stride = ConstantInts(node->input(2));
    const auto padding = ConstantInts(node->input(3));
    const auto dilation = max ? ConstantInts(node->input(4)) : std::vector<std::int64_t>{1};
    if (!kernel || !stride || !padding || !dilation || kernel->empty()) {
      return Describe(node) + " has a kernel, stride or padding that is not a constant";
    }
    const auto at = [](const std::vector<std::int64_t>& values, std::size_t i) {
      return values.empty() ? 1 : values[std::min(i, values.size() - 1)];
    };
    CropReach reach;
    for (std::size_t i = 0; i < 2; ++i) {
      const std::int64_t k = at(*kernel, i), p = at(*padding, i), d = at(*dilation, i);
      const std::int64_t s = stride->empty() ? k : at(*stride, i);
      if (s != 1 || 2 * p != d * (k - 1)) {
        return Describe(node) + " changes the image's size (stride or padding)";
      }
      reach.constant = std::max(reach.constant, p);
    }
    return Padded(node, loops, std::move(reach));
  }

  // The kernel's size is the weight's, known only at run time, where the rewritten graph checks
  // that the convolution keeps the size.
  std::string Conv(Node* node, const std::vector<Node*>& loops) {
    if (data_.Holds(node->input(1)) || data_.Holds(node->input(2))) {
      return Describe(node) + " convolves with a kernel computed from the image";
    }
    for (std::size_t i = 1; i < node->inputs().size(); ++i) {
      if (!Computable(node->inputs()[i], top_, first_)) {
        return Describe(node) + " takes a kernel or setting made inside the transforms";
      }
    }
    const auto stride = ConstantInts(node->input(3));
    if (!stride || std::any_of(stride->begin(), stride->end(), [](auto s) { return s != 1; })) {
      return Describe(node) + " has a stride other than 1";
    }
    if (node->input(4)->type()->kind() == c10::TypeKind::StringType) {
      const auto padding = torch::jit::toIValue(node->input(4));
      if (!padding || padding->toStringRef() != "same") {
        return Describe(node) + " changes the image's size (padding)";
      }
    }
    CropReach reach;
    reach.conv = node;
    return Padded(node, loops, std::move(reach));
  }

  std::string Roll(Node* node, const std::vector<Node*>& loops) {
    const auto dims = ConstantInts(node->input(2));
    if (!dims || dims->empty()) {
      return Describe(node) + " rolls the flattened image or along dims that are not constant";
    }
    Node* shifts = node->input(1)->node();
    const auto constant_shifts = ConstantInts(node->input(1));
    if (!constant_shifts && shifts->kind() != torch::jit::prim::ListConstruct) {
      return Describe(node) + " takes its shifts from a list the rewrite cannot read";
    }
    const std::size_t count = constant_shifts ? constant_shifts->size() : shifts->inputs().size();
    if (count != dims->size()) return Describe(node) + " has a different number of shifts and dims";
    CropReach reach;
    for (std::size_t i = 0; i < dims->size(); ++i) {
      const std::int64_t d = (*dims)[i];
      if (!IsSpatial(static_cast<int>(d < 0 ? d : d - rank_))) continue;
      if (constant_shifts) {
        reach.constant = std::max(reach.constant, std::abs((*constant_shifts)[i]));
        continue;
      }
      const std::string problem = Shift(node, shifts->input(i), reach);
      if (!problem.empty()) return problem;
    }
    const std::string problem = Repeats(node, loops, reach);
    if (!problem.empty()) return problem;
    if (padded_) return Describe(node) + " wraps the border around where padding ops pad it";
    site_.circular = true;
    site_.reach.push_back(std::move(reach));
    return "";
  }

  // A shift the margin can bound: a value known where the crop is (or computable there from
  // such values), or the index of a loop over range(low, high).
  std::string Shift(const Node* roll, Value* shift, CropReach& reach) {
    Node* derive = shift->node();
    if (derive->kind().toQualString() == std::string("aten::__derive_index")) {
      Value* index = derive->input(0);
      Node* loop = index->node()->owningBlock()->owningNode();
      Node* length = loop ? loop->input(0)->node() : nullptr;
      if (length && length->kind().toQualString() == std::string("aten::__range_length") &&
          length->input(0) == derive->input(1) && length->input(2) == derive->input(2) &&
          index == loop->blocks()[0]->inputs()[0]) {
        reach.ranges.emplace_back(length->input(0), length->input(1));
        return "";
      }
    }
    if (!Computable(shift, top_, first_)) {
      return Describe(roll) + " shifts by a value the rewrite cannot bound where the crop is";
    }
    reach.shifts.push_back(shift);
    return "";
  }

 private:
  const DataFlow& data_;
  const Block* top_;
  const Node* first_;
  int rank_;
  CropSite& site_;
  bool padded_ = false;
};

// Whether a crop node keeps the whole dim: a slice with no start and no end, step 1.
bool KeepsWholeDim(const Node* node) {
  if (node->kind().toQualString() != std::string("aten::slice")) return false;
  const std::optional<std::int64_t> step = ConstantInt(node->input(4));
  return node->input(2)->mustBeNone() && node->input(3)->mustBeNone() && step && *step == 1;
}

class Search {
 public:
  Search(torch::jit::Graph& graph, const std::vector<int>& input_ranks,
         const std::vector<const Node*>& skip)
      : graph_(graph), ranks_(input_ranks), skip_(skip), data_(graph) {}

  CropSearch Run() {
    CropSearch result;
    for (Node* node : graph_.block()->nodes()) {
      if (!IsCrop(node) || !data_.Holds(node->input(0))) continue;
      const Node* before = node->input(0)->node();
      if (IsCrop(before) && before->owningBlock() == graph_.block() &&
          before->output()->uses().size() == 1) {
        continue;  // the middle of a chain that starts earlier
      }
      CropSite site;
      const std::string problem = Examine(node, site);
      if (!problem.empty()) {
        result.refused.push_back(problem);
      } else if (!site.moved.empty() && !site.spatial.empty()) {
        result.sites.push_back(std::move(site));
      }
    }
    return result;
  }

 private:
  // "" and a filled `site`, or why the crop cannot move; an empty `site.spatial` or
  // `site.moved` when there is nothing to move (no image crop, or nothing before it).
  std::string Examine(Node* first, CropSite& site) {
    site.first = first;
    site.cropped = first->input(0);
    for (Node* node = first;;) {
      site.chain.push_back(node);
      const auto& uses = node->output()->uses();
      if (uses.size() != 1 || !IsCrop(uses[0].user) || uses[0].offset != 0 ||
          uses[0].user->owningBlock() != graph_.block()) {
        break;
      }
      node = uses[0].user;
    }
    for (const Node* node : site.chain) {
      if (std::find(skip_.begin(), skip_.end(), node) != skip_.end()) return "";  // made so
    }
    CollectMoved(site);
    if (site.moved.empty()) return "";
    int rank = 0;
    for (const Value* source : site.sources) {
      if (source->offset() - 1 >= ranks_.size()) {
        return "the stage has more inputs than the workload";
      }
      const int own = ranks_[source->offset() - 1];
      if (rank != 0 && own != rank) {
        return "the crop at " + Describe(first) + " mixes inputs of different ranks";
      }
      rank = own;
    }
    const std::string where = ", before the crop " + Describe(first);
    for (Node* node : site.chain) {
      const std::optional<int> dim = FromEnd(node->input(1), rank);
      if (!dim) return "the crop " + Describe(node) + " takes a dim that is not a constant";
      if (!IsSpatial(*dim) || KeepsWholeDim(node)) continue;
      const bool narrow = node->kind().toQualString() == std::string("aten::narrow");
      if (narrow && node->input(2)->type()->kind() != c10::TypeKind::IntType) {
        return "the crop " + Describe(node) + " takes its start as a tensor";
      }
      const std::optional<std::int64_t> step = narrow ? 1 : ConstantInt(node->input(4));
      if (!step || *step != 1) return "the crop " + Describe(node) + " has a step other than 1";
      for (const SpatialCrop& earlier : site.spatial) {
        if (earlier.dim == *dim) return "the crop " + Describe(node) + " crops one dim twice";
      }
      for (std::size_t i = 2; i < 4; ++i) {
        if (!Computable(node->input(i), graph_.block(), first)) {
          return "the crop " + Describe(node) + " computes its bounds after it begins";
        }
      }
      site.spatial.push_back({node, *dim});
    }
    if (site.spatial.empty()) return "";
    MovedNodes moved(data_, graph_.block(), first, rank, site);
    for (Node* node : site.moved) {
      std::vector<Node*> loops;
      const std::string problem = moved.Check(node, loops);
      if (!problem.empty()) return problem + where;
      for (const Value* output : node->outputs()) {
        for (const torch::jit::Use& use : output->uses()) {
          const Node* user = TopLevel(use.user, graph_.block());
          const bool inside = user == first ||
              std::find(site.moved.begin(), site.moved.end(), user) != site.moved.end();
          if (!inside) {
            return "a transform's result is used elsewhere too, by " + Describe(use.user) + where;
          }
        }
      }
    }
    for (const CropReach& reach : site.reach) {
      for (const auto& range : reach.ranges) {
        if (!Computable(range.first, graph_.block(), first) ||
            !Computable(range.second, graph_.block(), first)) {
          return "a roll's loop range cannot be computed where the crop is" + where;
        }
      }
      for (const Value* trips : reach.trip_counts) {
        if (!Computable(trips, graph_.block(), first)) {
          return "a loop's length cannot be computed where the crop is" + where;
        }
      }
    }
    return "";
  }

  // The top-level nodes that compute the cropped value from the stage's inputs, in graph order,
  // and the inputs they read.
  void CollectMoved(CropSite& site) {
    std::unordered_set<const Node*> seen;
    std::vector<Value*> pending{site.cropped};
    while (!pending.empty()) {
      Value* value = pending.back();
      pending.pop_back();
      Node* node = value->node();
      if (node->kind() == torch::jit::prim::Param) {
        if (std::find(site.sources.begin(), site.sources.end(), value) == site.sources.end()) {
          site.sources.push_back(value);
        }
        continue;
      }
      if (!seen.insert(node).second) continue;
      for (Value* read : ReadsOf(node)) {
        if (data_.Holds(read)) pending.push_back(read);
      }
    }
    for (Node* node : graph_.block()->nodes()) {
      if (seen.count(node)) site.moved.push_back(node);
    }
    std::sort(site.sources.begin(), site.sources.end(),
              [](const Value* a, const Value* b) { return a->offset() < b->offset(); });
  }

  torch::jit::Graph& graph_;
  const std::vector<int>& ranks_;
  const std::vector<const Node*>& skip_;
  DataFlow data_;
};

}  // namespace

CropSearch FindCropSites(torch::jit::Graph& graph, const std::vector<int>& input_ranks,
                         const std::vector<const Node*>& skip) {
  return Search(graph, input_ranks, skip).Run();
}

}  // namespace advisor
