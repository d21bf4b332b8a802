#include "engine/model_candidate/sdpa_attention.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>

#include "engine/torch/device_info.h"

namespace advisor {
namespace {

constexpr const char* kOperator = "aten::scaled_dot_product_attention";
// query, key, value, attn_mask, dropout_p, is_causal, scale: the arguments the replacement sets.
constexpr std::size_t kKnownArguments = 7;

constexpr const char* kInputs =
    "graph(%q, %k, %v, %scale, %dim0, %dim1, %softmax_dim, %softmax_dtype):\n";

// The scale may sit on q (timm, the demo), on the scores, or divide the scores.
constexpr const char* kScaledQuery = R"IR(
  %scaled_q : Tensor = aten::mul(%q, %scale)
  %k_t : Tensor = aten::transpose(%k, %dim0, %dim1)
  %scores : Tensor = aten::matmul(%scaled_q, %k_t)
  %weights : Tensor = aten::softmax(%scores, %softmax_dim, %softmax_dtype)
  %out : Tensor = aten::matmul(%weights, %v)
  return (%out))IR";
constexpr const char* kScaledScores = R"IR(
  %k_t : Tensor = aten::transpose(%k, %dim0, %dim1)
  %scores : Tensor = aten::matmul(%q, %k_t)
  %scaled : Tensor = aten::mul(%scores, %scale)
  %weights : Tensor = aten::softmax(%scaled, %softmax_dim, %softmax_dtype)
  %out : Tensor = aten::matmul(%weights, %v)
  return (%out))IR";
constexpr const char* kDividedScores = R"IR(
  %k_t : Tensor = aten::transpose(%k, %dim0, %dim1)
  %scores : Tensor = aten::matmul(%q, %k_t)
  %scaled : Tensor = aten::div(%scores, %scale)
  %weights : Tensor = aten::softmax(%scaled, %softmax_dim, %softmax_dtype)
  %out : Tensor = aten::matmul(%weights, %v)
  return (%out))IR";

// c10::optional on LibTorch 1.13, std::optional on 2.x.
auto FindSdpa() { return c10::Dispatcher::singleton().findSchema({kOperator, ""}); }

// The operator's arguments after `scale` (2.5 added enable_gqa), passed at their defaults.
struct TrailingArguments {
  std::string constants;    // IR lines defining them
  std::string arguments;    // ", %name" for each, to append to the call
  std::string unsupported;  // the first one without a default the IR can spell
};

TrailingArguments ArgumentsAfterScale(const c10::FunctionSchema& schema) {
  TrailingArguments trailing;
  const std::vector<c10::Argument>& arguments = schema.arguments();
  for (std::size_t i = kKnownArguments; i < arguments.size(); ++i) {
    const auto& value = arguments[i].default_value();
    if (!value || !(value->isBool() || value->isNone())) {
      trailing.unsupported = arguments[i].name();
      return trailing;
    }
    // Typed: an untyped IR value is a Tensor, whose constant cannot hold a bool or None.
    const std::string constant = value->isBool() ? std::string(" : bool = prim::Constant[value=") +
                                                       (value->toBool() ? "1" : "0") + "]()"
                                                 : " : NoneType = prim::Constant()";
    trailing.constants += "  %" + arguments[i].name() + constant + "\n";
    trailing.arguments += ", %" + arguments[i].name();
  }
  return trailing;
}

std::string Replacement(const c10::FunctionSchema& schema, bool divided) {
  const TrailingArguments trailing = ArgumentsAfterScale(schema);
  std::string text = kInputs;
  text +=
      "  %no_mask : NoneType = prim::Constant()\n"
      "  %no_dropout : float = prim::Constant[value=0.0]()\n"
      "  %not_causal : bool = prim::Constant[value=0]()\n";
  text += trailing.constants;
  std::string scale = "%scale";
  if (divided) {
    text +=
        "  %one : float = prim::Constant[value=1.0]()\n"
        "  %inverse : float = aten::div(%one, %scale)\n";
    scale = "%inverse";
  }
  text += std::string("  %out : Tensor = ") + kOperator +
          "(%q, %k, %v, %no_mask, %no_dropout, %not_causal, " + scale + trailing.arguments + ")\n";
  text += "  return (%out)";
  return text;
}

// A float scale (a Tensor scale would broadcast differently), the transpose of the last two
// dimensions, and a softmax over the last one without a dtype.
bool IsPlainAttention(const torch::jit::Match& match,
                      const std::unordered_map<std::string, torch::jit::Value*>& values) {
  if (MatchedType(match, values, "scale")->kind() != c10::TypeKind::FloatType) return false;
  const std::optional<c10::IValue> dim0 = MatchedConstant(match, values, "dim0");
  const std::optional<c10::IValue> dim1 = MatchedConstant(match, values, "dim1");
  const std::optional<c10::IValue> softmax_dim = MatchedConstant(match, values, "softmax_dim");
  const std::optional<c10::IValue> softmax_dtype = MatchedConstant(match, values, "softmax_dtype");
  if (!dim0 || !dim1 || !softmax_dim || !softmax_dtype || !dim0->isInt() || !dim1->isInt() ||
      !softmax_dim->isInt()) {
    return false;
  }
  const bool last_two =
      (dim0->toInt() == -2 && dim1->toInt() == -1) || (dim0->toInt() == -1 && dim1->toInt() == -2);
  return last_two && softmax_dim->toInt() == -1 && softmax_dtype->isNone();
}

}  // namespace

std::string SdpaUnavailableReason() {
  const auto sdpa = FindSdpa();
  const std::string prefix = "not applicable: LibTorch " + TorchVersion() + " ";
  if (!sdpa) return prefix + "has no " + kOperator;
  const std::vector<c10::Argument>& arguments = sdpa->schema().arguments();
  if (arguments.size() < kKnownArguments || arguments[kKnownArguments - 1].name() != "scale") {
    return prefix + "has " + kOperator + " without a scale argument (added in 2.1)";
  }
  const std::string unsupported = ArgumentsAfterScale(sdpa->schema()).unsupported;
  if (!unsupported.empty()) {
    return prefix + "has " + kOperator +
           " with an argument the rewrite cannot fill: " + unsupported;
  }
  return "";
}

GraphRewrite SdpaAttentionRewrite() {
  const c10::FunctionSchema& schema = FindSdpa()->schema();
  return {"sdpa-attention",
          {{std::string(kInputs) + kScaledQuery, Replacement(schema, false), IsPlainAttention},
           {std::string(kInputs) + kScaledScores, Replacement(schema, false), IsPlainAttention},
           {std::string(kInputs) + kDividedScores, Replacement(schema, true), IsPlainAttention}}};
}

}  // namespace advisor
