// Time inside a torch.compile'd model by module instance, from inductor's own kernels (issue #29):
// each piece of work a compiled graph's call did in a window is given to the instances whose FX
// nodes its kernel computes (engine/analysis/compiled_provenance.h).
//
// A graph's call is the `## Call CompiledFxGraph ... ##` range inductor records; it is a backward
// graph's where a `CompiledFunctionBackward` range on its thread encloses it. Its work is, where
// the window recorded GPU work, each kernel launched inside it (by the launching op's correlation
// id), else each op directly inside it (inductor's C++ kernels where
// torch._inductor.config.cpp.enable_kernel_profile is on, and extern ATen calls). A piece of work
// is named by its kernel's or its op's name, looked up among the generated kernels of the graphs
// of its direction; failing that, its op directly inside the call is an ATen op matched, in
// order, to the graph's extern calls (the call's ATen ops of the names the graph calls, one for
// one with a graph's extern calls; no graph matching: unattributed). A kernel's time is split
// among its instances by their share of its nodes; one held by several instances is shared
// (its time counted in each instance's shared_ns too), the share no instance holds unattributed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/analysis/compiled_provenance.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct CompiledInstanceTime {
  std::string instance;
  TimeNs forward_ns = 0;
  TimeNs backward_ns = 0;
  TimeNs shared_ns = 0;  // of forward_ns + backward_ns, from kernels held by several instances

  TimeNs total_ns() const { return forward_ns + backward_ns; }
};

// Totals over the window (divide by its steps for per-step figures).
struct CompiledKernelTime {
  bool device = false;       // the work is GPU kernels (else host ops)
  std::int64_t calls = 0;    // compiled graphs' calls in the window
  std::int64_t pieces = 0;   // kernels (or ops) inside them
  std::int64_t unnamed = 0;  // of them, ones no table names
  TimeNs compiled_ns = 0;    // their time
  TimeNs attributed_ns = 0;  // given to instances
  TimeNs shared_ns = 0;      // of attributed_ns, from kernels held by several instances
  TimeNs backward_ns = 0;    // of compiled_ns, in backward graphs
  TimeNs backward_attributed_ns = 0;
  std::vector<CompiledInstanceTime> instances;  // most time first
};

CompiledKernelTime AttributeCompiledKernels(const Timeline& timeline,
                                            const std::vector<CompiledGraphSources>& graphs);

}  // namespace advisor
