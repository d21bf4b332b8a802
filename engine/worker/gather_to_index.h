// The gather-to-index rewrite (the PatchDropout fix): a gather along the token dimension whose
// index is one token index per row, expanded over the features,
//   x.gather(1, idx.unsqueeze(-1).expand(-1, -1, C))
// becomes row indexing,
//   x[torch.arange(B).unsqueeze(-1), idx]
// Same values; the backward accumulates B*K whole rows instead of scattering B*K*C elements.
#pragma once

#include "engine/worker/graph_rewrite.h"

namespace advisor {

GraphRewrite GatherToIndexRewrite();

}  // namespace advisor
