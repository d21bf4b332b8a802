// The sdpa-attention recipe as a change to the user's code: hand-written attention, from the
// product of q and k to the product with v, becomes one call of
// F.scaled_dot_product_attention that keeps what those lines did: a mask filled into or added
// to the scores (attn_mask), the factor on the scores (scale; 1.0 where there is none, since
// SDPA's default is 1/sqrt(q.size(-1))), dropout on the weights (dropout_p, off outside training
// where the user's was). What the call cannot do (the weights used afterwards, a mask or product
// on the weights, two masks) is said plainly instead of a diff that would drop it.
#pragma once

#include "engine/model/finding.h"
#include "engine/script/source_block.h"

namespace advisor {

// `at`: the finding's line (its softmax); `function`: the lines of the function that holds it,
// or nullptr where they could not be read (then `at`'s line is all there is to go on).
CodeChange SdpaChange(const SourceLocation& at, const SourceBlock* function);

}  // namespace advisor
