// Time inside a torch.compile'd model by module instance, from inductor's own kernels (issue #29;
// engine/analysis/compiled_kernels.h fills it): RunReport::compiled_kernels, report.json's
// `compiled_kernels` (docs/report-schema.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace advisor {

// Times are nanoseconds.
struct CompiledInstanceTime {
  std::string instance;
  std::int64_t forward_ns = 0;
  std::int64_t backward_ns = 0;
  std::int64_t shared_ns =
      0;  // of forward_ns + backward_ns, from kernels held by several instances

  std::int64_t total_ns() const { return forward_ns + backward_ns; }
};

// Totals over the window (divide by `steps` for per-step figures). The compiled time is
// attributed_ns + unnamed_ns + nodeless_ns + unheld_ns().
struct CompiledKernelTime {
  int steps = 0;                   // the window's steps
  bool device = false;             // the work is GPU kernels (else host ops)
  std::int64_t calls = 0;          // compiled graphs' calls in the window
  std::int64_t pieces = 0;         // kernels (or ops) inside them
  std::int64_t unnamed = 0;        // of them, ones no table names
  std::int64_t nodeless = 0;       // of them, extern calls whose table entry names no node
  std::int64_t compiled_ns = 0;    // their time
  std::int64_t attributed_ns = 0;  // given to instances
  std::int64_t shared_ns = 0;      // of attributed_ns, from kernels held by several instances
  std::int64_t origins_ns = 0;     // of attributed_ns, from extern calls named by their IR origins
  std::int64_t unnamed_ns = 0;     // of compiled_ns, the unnamed pieces'
  std::int64_t nodeless_ns = 0;    // of compiled_ns, the nodeless extern calls'
  std::int64_t backward_ns = 0;    // of compiled_ns, in backward graphs
  std::int64_t backward_attributed_ns = 0;
  std::vector<CompiledInstanceTime> instances;  // most time first

  // The named kernels' time whose nodes no instance holds (a pattern's replacement node).
  std::int64_t unheld_ns() const { return compiled_ns - attributed_ns - unnamed_ns - nodeless_ns; }
};

}  // namespace advisor
