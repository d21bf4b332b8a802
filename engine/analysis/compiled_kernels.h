// Time inside a torch.compile'd model by module instance, from inductor's own kernels (issue #29):
// each piece of work a compiled graph's call did in a window is given to the instances whose FX
// nodes its kernel computes (engine/analysis/compiled_provenance.h).
//
// A graph's call is the `## Call CompiledFxGraph ... ##` range inductor records under
// torch.profiler, or where none is inside it (an op observer's window: the script probe's),
// AOTAutograd's `CompiledFunction` or `CompiledFunctionBackward` range; it is a backward graph's
// where it is, or is inside, a `CompiledFunctionBackward` range on its thread. Its work is, where
// the window recorded GPU work, each kernel launched inside it (by the launching op's correlation
// id), else each op directly inside it (inductor's C++ kernels where
// torch._inductor.config.cpp.enable_kernel_profile is on, and extern ATen calls). A piece of work
// is named by its kernel's or its op's name, looked up among the generated kernels of the graphs
// of its direction; failing that, its op directly inside the call is an ATen op matched, in
// order, to the graph's extern calls (the call's ATen ops of the names the graph calls, one for
// one with a graph's extern calls; no graph matching: unattributed). A kernel's time is split
// among its instances by their share of its nodes; one held by several instances is shared
// (its time counted in each instance's shared_ns too), the share no instance holds unattributed.
// A piece no table names (unnamed), and an extern call whose table entry names none of its nodes
// (nodeless: no comment, no IR origins), are unattributed too, each counted apart, so that the
// parts add up to the compiled time.
#pragma once

#include <vector>

#include "engine/analysis/compiled_provenance.h"
#include "engine/model/compiled_kernels.h"
#include "engine/timeline/timeline.h"

namespace advisor {

CompiledKernelTime AttributeCompiledKernels(const Timeline& timeline,
                                            const std::vector<CompiledGraphSources>& graphs);

}  // namespace advisor
