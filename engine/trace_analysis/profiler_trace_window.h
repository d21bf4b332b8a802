// One torch.profiler trace as the engine's profiled window: ops with their modules (forward
// markers from the trace's module ranges, backward markers from sequence numbers), steps cut into
// phases, GPU records linked to their ops; placed and attributed as a bisection window is, plus
// what only a trace has: memory records, DataLoader ranges, collectives.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/gpu/device_limits.h"
#include "engine/model/run_report.h"
#include "engine/trace_analysis/collectives.h"
#include "engine/trace_analysis/gpu_records.h"
#include "engine/trace_analysis/host_events.h"
#include "engine/trace_analysis/trace_records.h"
#include "engine/trace_analysis/trace_steps.h"
#include "engine/trace_import/event_store.h"
#include "engine/window/measured_window.h"

namespace advisor {

struct ProfilerTraceWindow {
  // Its placements every op's where kept (OpPlacementsKept), else where the trace holds GPU
  // records; else empty, the window placed a segment at a time.
  MeasuredWindow window;
  std::map<ModulePath, std::string> module_types;  // path -> class, where the trace names it
  // The top-level forward ops of each instrumented module (AddForwardOps), read as the window
  // was placed.
  std::map<ModulePath, ForwardOps> forward_ops;
  std::vector<CollectiveCall> collectives;
  bool gpu_activity = false;  // the trace recorded CUDA activity
  std::string device_name;    // deviceProperties' name of the device the work ran on
  std::optional<DeviceLimits> device_limits;
  // window.timeline.steps on the device's clock (DeviceClockSteps): the report's step times and
  // phases where there is device work; empty on a CPU trace, whose steps are the host's.
  std::vector<StepSpan> steps_on_device;
  // advisor's own trace.json: its profiled windows (TraceSteps::windows), their steps indices
  // into window.timeline.steps; the report's step times and phases come from the first's, each
  // module's figures from the window that measured it (MeasuringSteps). Empty in any other
  // trace.
  std::vector<AdvisorWindow> advisor_windows;
  StepCut step_cut = StepCut::kWholeTrace;   // where the steps were cut (trace_steps.h)
  bool partial_first_step_left_out = false;  // TraceSteps::partial_first_step_left_out
  bool has_modules = false;                  // nn.Module events or record_function labels
  bool backward_linked = false;              // backward nodes found their forward ops' threads
  bool has_data_loader = false;
  std::optional<int> data_loader_workers;
  bool cuda_graphs = false;  // the steps launch CUDA graphs
  // HostEvents::compute_dtype (the ops' input types, with record_shapes), else what the GEMM
  // kernels' names say (GemmMathOf); "" when neither tells.
  std::string compute_dtype;
  std::optional<bool> allow_tf32;  // true where GEMM kernels ran in TF32 (GemmMathOf)
  std::optional<MemoryStats> memory;
  std::vector<std::string> notes;  // for the report's data quality
};

// Whether the window keeps every op's placement once built: the multi-rank analysis reads them
// (each rank's top-level ops); one trace's report reads only what the window's pass takes, and a
// CPU trace's millions of ops are then never all placed at once (MeasureWindowBySegment).
enum class OpPlacementsKept { kEvery, kWhereGpu };

// `store` for its path and metadata: its events are not read again, and may be gone. `threads`
// place a window placed a segment at a time (0: one a core, as the reader's
// ReadOptions::threads); the window is the same with any number.
ProfilerTraceWindow BuildProfilerTraceWindow(const TraceStore& store, TraceRecords records,
                                             OpPlacementsKept kept, int threads);

// Both of the above, the events kept, and every op's placement.
ProfilerTraceWindow BuildProfilerTraceWindow(const TraceStore& store);

}  // namespace advisor
