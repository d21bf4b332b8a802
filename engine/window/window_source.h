// What the bisection asks of a front door: the module tree, timed steps, and profiled windows of
// the user's training step with chosen modules instrumented. The TorchScript runner
// (engine/torch/torchscript_source) and the script probe's controller (engine/script) implement
// it; the bisection loop (engine/bisect/bisection) drives either without knowing which.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/compiled_provenance.h"
#include "engine/analysis/line_costs.h"
#include "engine/gpu/device_limits.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"
#include "engine/window/module_info.h"

namespace advisor {

// Which modules a window brackets with marker ops.
enum class Instrumentation {
  kNone,         // the uninstrumented baseline
  kChildrenOf,   // the children of WindowRequest::parent, and the parent's own call
  kEveryModule,  // every module: names the modules of sync and copy sites
};

struct WindowRequest {
  Instrumentation instrumentation = Instrumentation::kNone;
  std::string parent;  // with kChildrenOf; "" is the root
  int steps = 0;
  // Synchronise the device at each phase end, so that host timestamps delimit each phase's
  // device work too (the baseline's breakdown). Kernels find their op by correlation, not by
  // time, so the levels' windows run without.
  bool sync_phases = false;
  // Record the device's kernels and copies (the GPU probe, where one runs). The levels of a
  // host-bound step go without: there the host's time is the step's, and the probe's record per
  // launch is most of what instrumenting such a step costs.
  bool device_activity = true;
  // False for a window that follows the memory's holder off the levels' path (BisectionMemory):
  // what the ranks compare module by module stays the levels' deepest window.
  bool follows_the_levels = true;
};

// Whose code labelled steps label with the lines of the user's code that ran.
// Steps a labelled recording runs: each line's numbers are the median of theirs, so that one step
// in which an op waited for a core does not name its line.
inline constexpr int kLabelledSteps = 3;

struct LabelScope {
  // The loss: the step's time from the model's forward returning to backward(). Else the forward
  // of the module at `path`, its submodules' included.
  bool loss = false;
  std::string path;
};

// The losses a window's steps computed, checked once its probes stopped: a diverged training is
// measured all the same, and the report says so.
struct LossCheck {
  int steps = 0;       // steps whose loss was read
  int non_finite = 0;  // of them, steps with a loss that was NaN or infinite
};

struct RecordedWindow {
  Timeline timeline;
  std::optional<MemoryStats> memory;  // the device's allocator over the window; absent on CPU
  std::optional<LossCheck> losses;    // absent where the door cannot read the loss
  // The input stage measured where it prepared the window's batches (per transform and line,
  // worker utilisation); absent where the door has no input stage or cannot measure inside it.
  std::optional<InputStageProfile> input_stage;
  // The kernel tables of the graphs inductor compiled for the model (a script probe's, with the
  // baseline's window): what each compiled kernel in the window computes, by module instance
  // (engine/bisect/provenance_levels.h). Empty where the door recorded none.
  std::vector<CompiledGraphSources> compiled_graphs;
};

// What the front door knows of the run before any window.
struct SourceDescription {
  RunInfo run;  // mode, model or command, device, versions, batch, dtype, ...
  std::optional<DeviceLimits> device_limits;  // for the occupancy estimate; absent on CPU
  // The input pipeline's settings (workers, pinned memory); absent when the door cannot tell.
  // The bisection fills wait_ms from the baseline's data phase.
  std::optional<DataWait> input;
  std::vector<std::string> notes;               // data-quality lines the door knows from the start
  std::optional<TrainingState> training_state;  // where the door measures it (a script)
};

// Steps a door ran without a profiler, and how it timed them.
struct TimedSteps {
  std::vector<StepSpan> steps;
  StepTiming timing = StepTiming::kHostClock;
};

class WindowSource {
 public:
  virtual ~WindowSource() = default;

  virtual const SourceDescription& Describe() const = 0;
  virtual const ModuleTree& Modules() const = 0;

  // `steps` steps with no probe recording: the step time.
  virtual TimedSteps TimeSteps(int steps) = 0;
  // `request.steps` steps with the op probe (and the GPU probe, where one runs) recording.
  // Throws std::runtime_error (one line) when the step cannot run.
  virtual RecordedWindow Record(const WindowRequest& request) = 0;

  // The file and line in the user's code of a call to `op` (e.g. "aten::gather") made by the
  // forward of the module at `path`: where the door times its lines (a script), the call site whose
  // runs of it cost most, else the first call; nullopt when the door cannot tell.
  virtual std::optional<SourceLocation> SourceOf(const std::string& path,
                                                 const std::string& op) = 0;

  // A few steps with every line of `scope` in the user's code labelled (kLabelledSteps), as each
  // training process ran them (one per rank, in rank order); none where the door cannot label
  // lines (a model.pt's come from its archive: SourceOf).
  virtual std::vector<LabelledSteps> RecordLabelled(const LabelScope& scope) {
    static_cast<void>(scope);
    return {};
  }
};

}  // namespace advisor
