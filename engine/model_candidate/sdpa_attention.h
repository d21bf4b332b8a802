// The sdpa-attention rewrite: attention written out as matmul, softmax, matmul,
//   softmax(q @ k.transpose(-2, -1) * scale, dim=-1) @ v
// (the scale on q, on the scores, or as a division of the scores) becomes
//   aten::scaled_dot_product_attention(q, k, v, scale=scale)
// which dispatches to fused kernels where device, dtype and shapes allow. Only the pattern with no
// mask and no dropout between softmax and the second matmul matches.
#pragma once

#include <string>

#include "engine/model_candidate/graph_rewrite.h"

namespace advisor {

// "" when this LibTorch has aten::scaled_dot_product_attention with a `scale` argument (2.1 and
// later), found by looking the operator up at run time; otherwise why not, starting with
// "not applicable".
std::string SdpaUnavailableReason();

// Call only when SdpaUnavailableReason() is "".
GraphRewrite SdpaAttentionRewrite();

}  // namespace advisor
