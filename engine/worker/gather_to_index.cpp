#include "engine/worker/gather_to_index.h"

namespace advisor {
namespace {

constexpr const char* kPattern = R"IR(
graph(%x, %dim, %idx, %unsqueeze_dim, %sizes, %implicit, %sparse_grad):
  %column : Tensor = aten::unsqueeze(%idx, %unsqueeze_dim)
  %index : Tensor = aten::expand(%column, %sizes, %implicit)
  %out : Tensor = aten::gather(%x, %dim, %index, %sparse_grad)
  return (%out))IR";

// Row indexing is taken only where it gives exactly the gather's result: a 3-D gather whose
// index spans all of x's features. Any other shape (the pattern cannot see shapes) falls back to
// the original gather at run time, so the rewrite is exact for every input. The expand stays: it
// raises the same errors for bad sizes and gives the index's batch and token counts.
constexpr const char* kReplacement = R"IR(
graph(%x, %dim, %idx, %unsqueeze_dim, %sizes, %implicit, %sparse_grad):
  %column : Tensor = aten::unsqueeze(%idx, %unsqueeze_dim)
  %index : Tensor = aten::expand(%column, %sizes, %implicit)
  %index_sizes : int[] = aten::size(%index)
  %x_sizes : int[] = aten::size(%x)
  %rank : int = aten::len(%index_sizes)
  %three : int = prim::Constant[value=3]()
  %is_3d : bool = aten::eq(%rank, %three)
  %last : int = prim::Constant[value=-1]()
  %index_width : int = aten::__getitem__(%index_sizes, %last)
  %x_width : int = aten::__getitem__(%x_sizes, %last)
  %whole_rows : bool = aten::eq(%index_width, %x_width)
  %take_rows : bool = aten::__and__(%is_3d, %whole_rows)
  %result : Tensor = prim::If(%take_rows)
    block0():
      %zero : int = prim::Constant[value=0]()
      %one : int = prim::Constant[value=1]()
      %batch : int = aten::__getitem__(%index_sizes, %zero)
      %tokens : int = aten::__getitem__(%index_sizes, %one)
      %token_sizes : int[] = prim::ListConstruct(%batch, %tokens)
      %no : bool = prim::Constant[value=0]()
      %token_index : Tensor = aten::expand(%idx, %token_sizes, %no)
      %int64 : int = prim::Constant[value=4]()
      %none : NoneType = prim::Constant()
      %device : Device = prim::device(%x)
      %batch_range : Tensor = aten::arange(%batch, %int64, %none, %device, %none)
      %row_index : Tensor = aten::unsqueeze(%batch_range, %last)
      %indices : Tensor?[] = prim::ListConstruct(%row_index, %token_index)
      %rows : Tensor = aten::index(%x, %indices)
      -> (%rows)
    block1():
      %gathered : Tensor = aten::gather(%x, %dim, %index, %sparse_grad)
      -> (%gathered)
  return (%result))IR";

bool IsOneOf(const std::optional<c10::IValue>& value, std::initializer_list<int64_t> allowed) {
  if (!value || !value->isInt()) return false;
  for (int64_t candidate : allowed) {
    if (value->toInt() == candidate) return true;
  }
  return false;
}

// The token dimension of a 3-D gather (1 or -2), an index that is one column per row (unsqueezed
// at the end), and a dense gradient: only then is row indexing the same computation.
bool GathersWholeRows(const torch::jit::Match& match,
                      const std::unordered_map<std::string, torch::jit::Value*>& values) {
  const std::optional<c10::IValue> sparse_grad = MatchedConstant(match, values, "sparse_grad");
  return IsOneOf(MatchedConstant(match, values, "dim"), {1, -2}) &&
         IsOneOf(MatchedConstant(match, values, "unsqueeze_dim"), {-1, 2}) && sparse_grad &&
         sparse_grad->isBool() && !sparse_grad->toBool();
}

}  // namespace

GraphRewrite GatherToIndexRewrite() {
  return {"gather-to-index", {{kPattern, kReplacement, GathersWholeRows}}};
}

}  // namespace advisor
