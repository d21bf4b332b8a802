#include "engine/trace_analysis/profiler_trace_window.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "engine/analysis/sequence_numbers.h"
#include "engine/trace_analysis/event_names.h"
#include "engine/trace_analysis/gemm_precision.h"
#include "engine/trace_analysis/module_markers.h"
#include "engine/trace_import/trace_error.h"
#include "engine/trace_import/trace_reader.h"

namespace advisor {
namespace {

bool LaunchesGraphs(const std::vector<ApiCallEvent>& calls) {
  for (const ApiCallEvent& call : calls) {
    if (call.name == "cudaGraphLaunch" || call.name == "cuGraphLaunch") return true;
  }
  return false;
}

}  // namespace

ProfilerTraceWindow BuildProfilerTraceWindow(const TraceStore& store) {
  return BuildProfilerTraceWindow(store, ReadTraceRecords(store), OpPlacementsKept::kEvery, 1);
}

ProfilerTraceWindow BuildProfilerTraceWindow(const TraceStore& store, TraceRecords records,
                                             OpPlacementsKept kept, int threads) {
  ProfilerTraceWindow trace;
  HostEvents& host = records.host;
  GpuRecords& gpu = records.gpu;
  TraceSteps& steps = records.steps;
  const auto markers_of_modules = [&] {
    try {
      return MarkersOfModuleRanges(host.modules);
    } catch (const ModuleNestingError& error) {
      throw TraceError(store.path, error.what());
    }
  };
  ModuleMarkers modules = markers_of_modules();

  trace.step_cut = steps.cut;
  trace.advisor_windows = std::move(steps.windows);
  trace.partial_first_step_left_out = steps.partial_first_step_left_out;
  trace.steps_on_device = std::move(steps.on_device);
  trace.has_modules = !modules.markers.empty();
  trace.backward_linked = host.backward_linked;
  trace.module_types = std::move(modules.types);
  trace.has_data_loader = !host.data_loader.empty();
  if (trace.has_data_loader)
    trace.data_loader_workers = DataLoaderWorkers(host.data_loader.front().name);
  trace.gpu_activity = gpu.any_device_work;
  trace.cuda_graphs = LaunchesGraphs(gpu.api_calls);
  trace.compute_dtype = host.compute_dtype;
  const GemmMath gemm_math = GemmMathOf(gpu.kernels);
  const bool dtype_from_kernels = trace.compute_dtype.empty() && !gemm_math.dtype.empty();
  if (dtype_from_kernels) trace.compute_dtype = gemm_math.dtype;
  trace.allow_tf32 = gemm_math.tf32;
  trace.notes = host.notes;
  if (dtype_from_kernels) {
    trace.notes.push_back("the step's dtype (" + trace.compute_dtype +
                          ") is read from its GEMM kernels' names: the trace has no input types "
                          "(record_shapes=False)");
  }
  trace.memory = std::move(records.memory);
  if (gpu.any_device_work) {
    if (const DeviceProperties* device = DeviceOf(store.metadata, gpu.device)) {
      trace.device_name = device->name;
      trace.device_limits = DeviceLimitsOf(store.metadata, gpu.device);
    } else {
      trace.notes.push_back("the trace describes no device " + std::to_string(gpu.device) +
                            " (deviceProperties): no device name, memory size or occupancy");
    }
  }

  Timeline timeline;
  timeline.steps = std::move(steps.steps);
  timeline.ops = std::move(host.ops);
  timeline.op_sequences = std::move(host.op_sequences);
  timeline.markers = std::move(modules.markers);
  timeline.kernels = std::move(gpu.kernels);
  timeline.memcpys = std::move(gpu.memcpys);
  timeline.memsets = std::move(gpu.memsets);
  timeline.syncs = std::move(gpu.syncs);
  timeline.api_calls = std::move(gpu.api_calls);
  // GPU records name their ops by correlation id, each op's index + 1 (HostEvents::ops); a trace
  // without any, a CPU trace's millions of ops, holds no column of them.
  if (!timeline.kernels.empty() || !timeline.memcpys.empty() || !timeline.memsets.empty() ||
      !timeline.syncs.empty() || !timeline.api_calls.empty()) {
    timeline.op_correlation_ids.resize(timeline.ops.size());
    std::iota(timeline.op_correlation_ids.begin(), timeline.op_correlation_ids.end(), 1);
  }
  timeline.probes.push_back({"ops", true, "torch.profiler trace", 0});
  // Only a trace with CUDA activity says anything about the device: without, there is no GPU
  // section at all rather than an idle GPU.
  if (trace.gpu_activity) timeline.probes.push_back({"cupti", true, "", 0});

  // advisor's trace.json says where each module's backward began and ended, as the bisection
  // placed its backward ops: the autograd engine's own ops between its nodes (gradients summed
  // and accumulated, no sequence number) are the module's, 2.56 ms a step of an H200 ViT's
  // blocks (tests/trace_analysis/gpu_trace_phases_test.cpp). Elsewhere backward ops take the
  // modules of their forward ops, found by sequence number once the forward ops are placed.
  if (!host.advisor_backward_spans.empty()) {
    for (const HostRange& span : host.advisor_backward_spans) {
      timeline.markers.push_back(
          {ModulePath(span.name), MarkerKind::kBackwardBegin, span.thread, span.start_ns});
      timeline.markers.push_back(
          {ModulePath(span.name), MarkerKind::kBackwardEnd, span.thread, span.end_ns});
    }
  } else if (trace.has_modules && trace.backward_linked) {
    const std::vector<MarkerEvent> backward =
        BackwardMarkersFromSequenceNumbers(timeline, PlaceOps(timeline));
    timeline.markers.insert(timeline.markers.end(), backward.begin(), backward.end());
  }
  if (threads <= 0) threads = DefaultReaderThreads();
  if (kept == OpPlacementsKept::kWhereGpu && PlaceableBySegment(timeline)) {
    // No GPU record: the collectives are gloo's host ranges (CollectivesOf's), read segment by
    // segment with the modules' forward ops, each segment on the thread that placed it; added
    // here in the ops' order.
    trace.window = MeasureWindowBySegment(
        std::move(timeline),
        [&](const Timeline& placed, const OpPlacements& segment) -> std::function<void()> {
          std::map<ModulePath, ForwardOps> forward_ops;
          AddForwardOps(placed, segment, forward_ops);
          std::vector<CollectiveCall> collectives;
          AddHostCollectives(placed, segment, host, collectives);
          return [&trace, forward_ops = std::move(forward_ops),
                  collectives = std::move(collectives)]() mutable {
            MergeForwardOps(std::move(forward_ops), trace.forward_ops);
            trace.collectives.insert(trace.collectives.end(),
                                     std::make_move_iterator(collectives.begin()),
                                     std::make_move_iterator(collectives.end()));
          };
        },
        threads);
    SortByStart(trace.collectives);
    return trace;
  }
  // GPU records name their ops by index once the window is built: every op's placement is kept,
  // the segments placed on the reader's threads all the same.
  trace.window = kept == OpPlacementsKept::kWhereGpu
                     ? MeasureWindowOnThreads(std::move(timeline), threads)
                     : MeasureWindow(std::move(timeline));
  AddForwardOps(trace.window.timeline, trace.window.placements, trace.forward_ops);
  trace.collectives = CollectivesOf(trace.window, host, gpu.collective_of_kernel);
  return trace;
}

}  // namespace advisor
