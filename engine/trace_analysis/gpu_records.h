// The device side of a trace as the engine's timeline records: kernels, copies, memsets, CUPTI's
// synchronisation records and the CUDA runtime and driver calls, each linked to the op that
// launched it, the way the engine's op probe links them (the innermost op running on the
// launching thread when the call was made).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/gpu/device_limits.h"
#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_events.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// A kernel, copy or memset and the host time its launch call started: what the steps on the
// device's clock are measured from (DeviceClockSteps).
struct LaunchedWork {
  TimeNs launch_ns = 0;
  TimeNs end_ns = 0;  // on the device
};

struct GpuRecords {
  std::vector<KernelEvent> kernels;
  std::vector<MemcpyEvent> memcpys;
  std::vector<MemsetEvent> memsets;
  std::vector<SyncEvent> syncs;
  std::vector<ApiCallEvent> api_calls;
  // By kernel index: what newer Kineto writes on NCCL kernels about their collective.
  std::unordered_map<std::size_t, CollectiveDescription> collective_of_kernel;
  bool any_device_work = false;  // kernels, copies or memsets: the trace recorded CUDA activity
  int device = -1;               // the device most of the work ran on
  // The work on `device` whose launch call is in the trace, in launch order.
  std::vector<LaunchedWork> launched_work;
};

// Kineto writes each runtime call's own correlation as its "External id", and some traces do the
// same for GPU records, so the op behind a record is found by time on the launching thread, not
// by that id: the runtime call with the record's correlation, then the innermost op around it
// (none where one of advisor's own ranges is innermost: HostEvents::advisor_ranges).
// A correlation id can recur in one trace (each window of advisor's trace.json numbered its CUPTI
// records from 1 until 7d3ddfb): a record's call is the last with its id to start at or before
// the record did.
// A record whose runtime call is not in the trace stays unlinked (work without an op).
GpuRecords ReadGpuRecords(const TraceStore& store, const HostEvents& host);

// What one chunk of a store's events says of the device side, read on any thread: the chunks are
// read in parallel and GpuRecordReader joins them in file order (ReadTraceRecords).
struct GpuChunkRecords {
  std::vector<KernelEvent> kernels;
  std::vector<MemcpyEvent> memcpys;
  std::vector<MemsetEvent> memsets;
  std::vector<SyncEvent> syncs;
  std::vector<ApiCallEvent> api_calls;
  // By the kernel's index in the chunk, in kernel order.
  std::vector<std::pair<std::size_t, CollectiveDescription>> collective_of_kernel;
  std::map<int, std::int64_t> work_by_device;  // time of kernels, copies and memsets
};

GpuChunkRecords ReadGpuChunk(const TraceStore& store, const EventChunk& chunk);

// Joins the chunks' GPU records, each once read; nothing of a chunk is kept but its records.
class GpuRecordReader {
 public:
  // Made while `store` holds all its events: it makes room for the records they may hold,
  // counted on up to `threads` threads.
  explicit GpuRecordReader(const TraceStore& store, int threads = 1);
  void Add(GpuChunkRecords&& chunk);  // the next of store.chunks'
  // Links the records to their ops on up to `threads` threads (LinkCallsToOps).
  GpuRecords Finish(const HostEvents& host, int threads);

 private:
  GpuRecords records_;
  std::map<int, std::int64_t> work_by_device_;  // time of kernels, copies and memsets
};

// deviceProperties of `device` as the occupancy estimate's limits; nullopt when the trace does
// not describe it fully.
std::optional<DeviceLimits> DeviceLimitsOf(const TraceMetadata& metadata, int device);
const DeviceProperties* DeviceOf(const TraceMetadata& metadata, int device);

}  // namespace advisor
