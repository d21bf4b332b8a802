// The gather-to-index rewrite (the PatchDropout fix): a gather along the token dimension whose
// index is one token index per row, expanded over the features,
//   x.gather(1, idx.unsqueeze(-1).expand(-1, -1, C))
// becomes row indexing,
//   x[torch.arange(B).unsqueeze(-1), idx]
// and its 4-D form, tokens picked per head (x.gather(2, idx.unsqueeze(-1).expand(-1, -1, -1, C))),
// becomes x[arange(B)[:, None, None], arange(H)[:, None], idx].
// Same values; the backward accumulates whole rows instead of scattering element by element.
#pragma once

#include "engine/model_candidate/graph_rewrite.h"

namespace advisor {

GraphRewrite GatherToIndexRewrite();

}  // namespace advisor
