// Reports to feed the writers: one with every section filled, as a CUDA run with fixes would
// produce, and one as small as a CPU run that isolated nothing.
#pragma once

#include "engine/model/run_report.h"

namespace advisor::testing {

// A ViT training step on a GPU whose backward gather in blocks.5.mlp is the hot spot; three
// findings (high, medium, low, given out of order), a verified, a rejected and a failed fix.
RunReport FilledReport();

// CPU, no GPU probe, no memory stats, one level that stopped the descent (chose nothing), no hot
// spot, no findings, no fixes, one module never instrumented.
RunReport MinimalReport();

// A CPU run whose ops counted their page faults: ragged_shapes' curriculum, whose ReluBackward0
// took longer than its MmBackward0, most of it faulting in fresh pages.
RunReport PageFaultReport();

// What advisor analyze makes of an allocator snapshot: no step or other timed section, the
// memory section with its peak (in the backward pass, blocks.1 holding the most), two module
// instances, the history's timeline, ranges and one OOM.
RunReport SnapshotReport();

// A bisection's memory section: its peak tied with another block's, the step's live memory over
// two categories with the phases and three instance calls under it, the line keeping memory.
RunReport BisectionMemoryReport();

// FilledReport with bench/user_trial/lightning_docs.py's input stage: a 4.1 ms data phase of a 30
// ms step, 2 DataLoader workers busy 3 % of the window at 0.9 ms a batch, which keep up with it.
RunReport IdleWorkersReport();

}  // namespace advisor::testing
