// Hand-built reports of one model before and after a change, for the diff's suites: a ViT-like
// step whose blocks.1.mlp.window gather was rewritten to indexing, measured one level deeper
// before than after.
#pragma once

#include "engine/model/run_report.h"

namespace advisor::testing {

// 100 ms steps (samples 99..101); forward 30, backward 60, optimizer 8, rest 2; modules
// patch_embed, blocks.0, blocks.1 (and its children attn, mlp; mlp's children window, fc: a
// deeper level than AfterReport's), head; the gather-backward finding and a verified fix.
RunReport BeforeReport();

// The same model after the change: 70 ms steps; blocks.1.mlp is 30 ms faster, its children not
// measured; a new finding (fp32-matmul); gather-backward gone; a module new on this side
// (blocks.1.norm).
RunReport AfterReport();

}  // namespace advisor::testing
