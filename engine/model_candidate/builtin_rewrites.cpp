#include "engine/model_candidate/builtin_rewrites.h"

#include <stdexcept>

#include "engine/model_candidate/crop_first.h"
#include "engine/model_candidate/gather_to_index.h"
#include "engine/model_candidate/sdpa_attention.h"

namespace advisor {

std::string WhyRewriteUnavailable(const std::string& name) {
  if (name == "gather-to-index" || name == "crop-first") return "";
  if (name == "sdpa-attention") return SdpaUnavailableReason();
  return "not implemented: the worker has no rewrite \"" + name + "\"";
}

GraphRewrite BuiltinRewrite(const std::string& name) {
  if (name == "gather-to-index") return GatherToIndexRewrite();
  if (name == "sdpa-attention") return SdpaAttentionRewrite();
  throw std::invalid_argument("no built-in rewrite \"" + name + "\"");
}

RewriteOutcome ApplyBuiltinRewrite(const std::string& name, torch::jit::Module& module,
                                   const WorkloadSpec& spec) {
  if (name == "crop-first") return ApplyCropFirst(module, spec);
  return ApplyGraphRewrite(module, BuiltinRewrite(name));
}

}  // namespace advisor
