#include "engine/trace_analysis/profiler_trace_window.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <utility>

#include "engine/analysis/sequence_numbers.h"
#include "engine/trace_analysis/device_clock_steps.h"
#include "engine/trace_analysis/event_names.h"
#include "engine/trace_analysis/gemm_precision.h"
#include "engine/trace_analysis/host_chunk_records.h"
#include "engine/trace_analysis/module_markers.h"
#include "engine/trace_analysis/trace_memory.h"
#include "engine/trace_import/trace_error.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/util/freed_memory.h"
#include "engine/util/ordered_pool.h"

namespace advisor {
namespace {

bool LaunchesGraphs(const std::vector<ApiCallEvent>& calls) {
  for (const ApiCallEvent& call : calls) {
    if (call.name == "cudaGraphLaunch" || call.name == "cuGraphLaunch") return true;
  }
  return false;
}

// What one chunk of events says, read on any thread.
struct ChunkRecords {
  HostChunkRecords host;
  GpuChunkRecords gpu;
  std::vector<DeviceMemoryRecord> memory;
};

// Reads every chunk of `store` once, on `threads` threads (0: DefaultReaderThreads()), and joins
// what each says in chunk order, so the records are those one thread reading each chunk in turn
// makes. `done(k)` is called on the thread that read chunk k once it is read: nothing of it is
// needed after. At most twice as many chunks' records as threads wait for the join (OrderedPool).
TraceRecords ReadRecords(const TraceStore& store, int threads,
                         const std::function<void(std::size_t)>& done) {
  const std::size_t chunks = store.chunks.size();
  std::vector<std::uint32_t> first_order(chunks);  // the events before each chunk
  for (std::size_t k = 1; k < chunks; ++k) {
    first_order[k] = first_order[k - 1] + static_cast<std::uint32_t>(store.chunks[k - 1].size());
  }
  const HostChunkReader host_chunks(store);
  const auto read = [&](std::size_t& k) {
    const EventChunk& chunk = store.chunks[k];
    ChunkRecords records{host_chunks.Read(chunk, first_order[k]), ReadGpuChunk(store, chunk), {}};
    AddDeviceMemoryRecords(chunk, records.memory);
    if (done) done(k);
    return records;
  };
  HostEventReader host(store);
  GpuRecordReader gpu;
  std::vector<DeviceMemoryRecord> memory;
  const auto join = [&](ChunkRecords&& records) {
    host.Add(std::move(records.host));
    gpu.Add(std::move(records.gpu));
    memory.insert(memory.end(), records.memory.begin(), records.memory.end());
  };
  if (threads <= 0) threads = DefaultReaderThreads();
  threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), chunks));
  if (threads <= 1) {
    for (std::size_t k = 0; k < chunks; ++k) join(read(k));
  } else {
    OrderedPool<std::size_t, ChunkRecords> pool(threads, read);
    for (std::size_t k = 0; k < chunks; ++k) pool.Submit(k, join);
    ChunkRecords records;
    while (pool.TakeNext(records, /*wait=*/true)) join(std::move(records));
  }

  TraceRecords records;
  records.host = host.Finish();
  records.gpu = gpu.Finish(records.host);
  records.steps = StepsOf(records.host);
  if (!records.gpu.launched_work.empty()) {
    records.steps.on_device = DeviceClockSteps(records.steps.steps, records.gpu.launched_work);
  }
  if (records.gpu.any_device_work) {
    const DeviceProperties* device = DeviceOf(store.metadata, records.gpu.device);
    records.memory = DeviceMemoryOf(memory, records.gpu.device,
                                    device ? device->total_memory_bytes : 0, records.steps.steps);
  }
  return records;
}

}  // namespace

TraceRecords ReadTraceRecords(const TraceStore& store, int threads) {
  return ReadRecords(store, threads, nullptr);
}

TraceRecords TakeTraceRecords(TraceStore& store, int threads) {
  // Freed chunks go back to the system every 4 (a plain file's chunk is 1 to 2 MiB of JSON), so
  // that the records grow into memory the events held rather than beside it (ReturnFreedMemory).
  // Every 64 held up to 64 freed chunks beside the records: with the window placed a segment at a
  // time, this stage's peak was the run's, 140-151 MB of a 260 MB legacy list's 123-125 MB now
  // (docs/benchmarks.md), at no CPU time that its runs could tell apart.
  constexpr std::size_t kChunksPerReturn = 4;
  TraceRecords records = ReadRecords(store, threads, [&store](std::size_t k) {
    store.chunks[k] = EventChunk{};
    if ((k + 1) % kChunksPerReturn == 0) ReturnFreedMemory();
  });
  store.chunks.clear();
  ReturnFreedMemory();
  return records;
}

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
    // segment with the modules' forward ops.
    trace.window = MeasureWindowBySegment(
        std::move(timeline),
        [&](const Timeline& placed, const OpPlacements& segment) {
          AddForwardOps(placed, segment, trace.forward_ops);
          AddHostCollectives(placed, segment, host, trace.collectives);
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
