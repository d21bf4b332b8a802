// The bisection loop, torch-free: measure the uninstrumented step, then descend the module tree
// one level per profiled window, instrumenting only the level under examination, until a leaf
// module or a level where nothing stands out; name the module instance, the phase and the op.
// Every front door (model.pt, a Python script) runs it through its WindowSource.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/bisect/finding_sources.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"
#include "engine/window/labelled_window.h"
#include "engine/window/window_source.h"

namespace advisor {

// Reports progress: one line, no newline.
using Progress = std::function<void(const std::string&)>;

// What every front door's bisection runs with, and the one set of defaults (the CLI's --steps,
// --max-depth and --warmup change them).
struct BisectSettings {
  int window_steps = 5;  // per profiled window, and unprofiled timing steps of the baseline
  int max_depth = 16;
  // Seconds some task on the machine has waited for a CPU so far (CpuStallSeconds); empty, or
  // nullopt from it, where not measured. Windows during which other processes kept the step's
  // threads waiting make the hot spot's confidence low.
  std::function<std::optional<double>()> cpu_stall_seconds;
  // CPU seconds used so far by the processes outside the workload's (OthersCpuSeconds); empty,
  // or nullopt, where not measured: every stall is then taken for other work's.
  std::function<std::optional<double>()> others_cpu_seconds = nullptr;
  // The shortest time over which other processes' CPU use is judged: /proc counts it in 10 ms
  // ticks. A stalled window of a run shorter than this waits out the rest before judging.
  double others_min_seconds = 0.5;
  // Steps the door runs and discards before measuring: a model's before each window (the
  // profiling executor compiles during the first steps), a script's after its first step, before
  // the baseline. Last, so that positional initialisers of the others keep their meaning.
  int warmup_steps = 3;
};

struct BisectOutcome {
  RunReport report;
  // Every profiled window, in the order they ran, for the trace: ops, markers and GPU activity
  // of their steps.
  std::vector<LabelledWindow> windows;
  // Where findings' ops are in the user's code, looked up after the bisection (LocateFindings):
  // RunBisection leaves it empty; the door that ran it sets it, the TorchScript model's from its
  // archive's sources (TorchScriptSource::Locator) and a script's in one more step of the running
  // script (ScriptLocator in engine/cli/bisect_command.cpp).
  SourceLocator locate;
};

// Runs the whole bisection through `source`. The report's run info is the source's, with the
// windows counted; wall_s is left to the caller, who knows when the run began.
BisectOutcome RunBisection(WindowSource& source, const BisectSettings& settings,
                           const Progress& progress);

}  // namespace advisor
