#include "engine/model_candidate/gather_to_index.h"

namespace advisor {
namespace {

constexpr const char* kPattern = R"IR(
graph(%x, %dim, %idx, %unsqueeze_dim, %sizes, %implicit, %sparse_grad):
  %column : Tensor = aten::unsqueeze(%idx, %unsqueeze_dim)
  %index : Tensor = aten::expand(%column, %sizes, %implicit)
  %out : Tensor = aten::gather(%x, %dim, %index, %sparse_grad)
  return (%out))IR";

// Row indexing is taken only where it gives exactly the gather's result: a 3-D gather on the token
// dimension (x[b, t, :]) or a 4-D one on the dimension before the features (x[b, h, t, :], tokens
// picked per head), whose index is one column per row (unsqueezed last) spanning all of x's
// features. Any other shape or dimension (the pattern cannot see shapes) falls back to the
// original gather at run time, so the rewrite is exact for every input. The expand stays: it
// raises the same errors for bad sizes and gives the index's leading sizes.
constexpr const char* kReplacement = R"IR(
graph(%x, %dim : int, %idx, %unsqueeze_dim : int, %sizes, %implicit, %sparse_grad):
  %column : Tensor = aten::unsqueeze(%idx, %unsqueeze_dim)
  %index : Tensor = aten::expand(%column, %sizes, %implicit)
  %index_sizes : int[] = aten::size(%index)
  %x_sizes : int[] = aten::size(%x)
  %rank : int = aten::len(%index_sizes)
  %x_rank : int = aten::len(%x_sizes)
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %four : int = prim::Constant[value=4]()
  %last : int = prim::Constant[value=-1]()
  %before_last : int = prim::Constant[value=-2]()
  %row_dim : int = aten::sub(%rank, %two)
  %on_row_dim : bool = aten::eq(%dim, %row_dim)
  %on_before_last : bool = aten::eq(%dim, %before_last)
  %gathers_rows : bool = aten::__or__(%on_row_dim, %on_before_last)
  %feature_dim : int = aten::sub(%rank, %one)
  %column_at_end : bool = aten::eq(%unsqueeze_dim, %feature_dim)
  %column_at_last : bool = aten::eq(%unsqueeze_dim, %last)
  %one_column : bool = aten::__or__(%column_at_end, %column_at_last)
  %index_width : int = aten::__getitem__(%index_sizes, %last)
  %x_width : int = aten::__getitem__(%x_sizes, %last)
  %whole_rows : bool = aten::eq(%index_width, %x_width)
  %same_rank : bool = aten::eq(%rank, %x_rank)
  %rows_of_columns : bool = aten::__and__(%gathers_rows, %one_column)
  %whole : bool = aten::__and__(%whole_rows, %same_rank)
  %takes_rows : bool = aten::__and__(%rows_of_columns, %whole)
  %is_3d : bool = aten::eq(%rank, %three)
  %is_4d : bool = aten::eq(%rank, %four)
  %rows_3d : bool = aten::__and__(%takes_rows, %is_3d)
  %rows_4d : bool = aten::__and__(%takes_rows, %is_4d)
  %no : bool = prim::Constant[value=0]()
  %int64 : int = prim::Constant[value=4]()
  %none : NoneType = prim::Constant()
  %device : Device = prim::device(%x)
  %batch : int = aten::__getitem__(%index_sizes, %zero)
  %batch_range : Tensor = aten::arange(%batch, %int64, %none, %device, %none)
  %result : Tensor = prim::If(%rows_3d)
    block0():
      %tokens : int = aten::__getitem__(%index_sizes, %one)
      %token_sizes : int[] = prim::ListConstruct(%batch, %tokens)
      %token_index : Tensor = aten::expand(%idx, %token_sizes, %no)
      %row_index : Tensor = aten::unsqueeze(%batch_range, %last)
      %indices : Tensor?[] = prim::ListConstruct(%row_index, %token_index)
      %rows : Tensor = aten::index(%x, %indices)
      -> (%rows)
    block1():
      %other : Tensor = prim::If(%rows_4d)
        block0():
          %heads : int = aten::__getitem__(%index_sizes, %one)
          %head_tokens : int = aten::__getitem__(%index_sizes, %two)
          %head_token_sizes : int[] = prim::ListConstruct(%batch, %heads, %head_tokens)
          %head_token_index : Tensor = aten::expand(%idx, %head_token_sizes, %no)
          %batch_column : Tensor = aten::unsqueeze(%batch_range, %last)
          %batch_index : Tensor = aten::unsqueeze(%batch_column, %last)
          %head_range : Tensor = aten::arange(%heads, %int64, %none, %device, %none)
          %head_index : Tensor = aten::unsqueeze(%head_range, %last)
          %head_indices : Tensor?[] = prim::ListConstruct(%batch_index, %head_index, %head_token_index)
          %head_rows : Tensor = aten::index(%x, %head_indices)
          -> (%head_rows)
        block1():
          %gathered : Tensor = aten::gather(%x, %dim, %index, %sparse_grad)
          -> (%gathered)
      -> (%other)
  return (%result))IR";

bool IsOneOf(const std::optional<c10::IValue>& value, std::initializer_list<int64_t> allowed) {
  if (!value || !value->isInt()) return false;
  for (int64_t candidate : allowed) {
    if (value->toInt() == candidate) return true;
  }
  return false;
}

// The dimension before the features of a 3-D or 4-D gather (1, 2 or -2), an index that is one
// column per row (unsqueezed at the end: -1, 2 or 3), and a dense gradient: only then can row
// indexing be the same computation (the replacement checks the rank at run time).
bool GathersWholeRows(const torch::jit::Match& match,
                      const std::unordered_map<std::string, torch::jit::Value*>& values) {
  const std::optional<c10::IValue> sparse_grad = MatchedConstant(match, values, "sparse_grad");
  return IsOneOf(MatchedConstant(match, values, "dim"), {1, 2, -2}) &&
         IsOneOf(MatchedConstant(match, values, "unsqueeze_dim"), {-1, 2, 3}) && sparse_grad &&
         sparse_grad->isBool() && !sparse_grad->toBool();
}

}  // namespace

GraphRewrite GatherToIndexRewrite() {
  return {"gather-to-index", {{kPattern, kReplacement, GathersWholeRows}}};
}

}  // namespace advisor
