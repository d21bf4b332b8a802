// Everything one run of advisor found, as plain data: what any front door measured (a model's
// bisection, a script's, a launcher's ranks, a torch.profiler trace's analysis), the findings the
// rules made of it and the fixes the autotester measured. The writers of report.json, report.md
// and report.html (engine/report) read only this; trace.json is written from the profiled windows
// themselves (engine/window/labelled_window.h), with only the device, ranks and findings from
// here. report.json is its serialisation and the contract that tools and tests read
// (docs/report-schema.md). Each section has its own
// header in engine/model; what counts as measured is engine/model/measured.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/compile_report.h"
#include "engine/model/compiled_kernels.h"
#include "engine/model/device.h"
#include "engine/model/distributed.h"
#include "engine/model/finding.h"
#include "engine/model/fixes.h"
#include "engine/model/localisation.h"
#include "engine/model/memory.h"
#include "engine/model/out_of_memory_failure.h"
#include "engine/model/run_info.h"
#include "engine/model/source_lines.h"
#include "engine/model/step.h"
#include "engine/model/training_state.h"

namespace advisor {

// A report section the front door could not measure, and why: reports say so instead of showing
// zeros (a trace has no bisection levels; a CPU trace has no GPU section).
struct AbsentSection {
  std::string section;  // the report.json key: "bisection", "hotspot", "gpu", ...
  std::string reason;
};

struct RunReport {
  RunInfo run;
  StepBreakdown step;
  std::vector<BisectLevel> levels;
  // Why the bisection's answer is in doubt: a level unclear in two windows, a choice that changed
  // on re-run, other work holding the CPUs. A hot spot then has confidence "low"; "no module
  // stands out" is as unsure. report.json has them as data_quality lines beginning
  // "low confidence: ".
  std::vector<std::string> doubts;
  // What the levels compared: "device" (kernel time their ops launched) on a step that kept the
  // device busy, "host" (the ops' host time) on the CPU and on a host-bound GPU step; "" without
  // a bisection (a trace).
  std::string levels_ranked_by;
  std::optional<Hotspot> hotspot;
  CrossCheck cross_check;
  std::vector<ModuleStats> modules;
  std::vector<OpTime> ops;                     // whole-step op table, hottest first
  std::vector<BroadcastTemporary> broadcasts;  // costliest first; the levels' windows found them
  std::optional<GpuSummary> gpu;               // absent without a GPU probe
  std::vector<SyncSite> syncs;
  std::vector<CopySite> copies;
  std::optional<MemoryStats> memory;  // absent on CPU
  std::optional<DataWait> data;       // absent without an input stage
  std::optional<LossCost> loss;       // a script's loss; absent in the other doors
  std::vector<Finding> findings;
  std::vector<FixResult> fixes;
  std::vector<std::string>
      data_quality;                   // one line each: probes absent, records dropped, rule errors
  std::vector<AbsentSection> absent;  // sections this front door cannot fill
  std::optional<DistributedSummary> distributed;  // several ranks: traces, or a launcher's
  std::optional<TrainingState> training_state;    // script mode: rank 0's under a launcher
  // Script mode, where torch compiled something: what its compiler did (rank 0's).
  std::optional<CompileReport> compile;
  // Where inductor's kernel provenance was given: a compiled model's kernel time by module
  // instance (`advisor analyze --compiled-provenance`).
  std::optional<CompiledKernelTime> compiled_kernels;
  // The run died of an out-of-memory error: the report is of that failure, with what was
  // measured before it (the sections it never reached are in `absent`).
  std::optional<OutOfMemoryFailure> out_of_memory;
};

}  // namespace advisor
