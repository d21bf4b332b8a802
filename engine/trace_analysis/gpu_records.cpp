#include "engine/trace_analysis/gpu_records.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

#include "engine/trace_analysis/event_names.h"
#include "engine/util/parallel_for.h"

namespace advisor {
namespace {

constexpr std::uint64_t kNoOp = 0;

std::uint32_t Narrow(std::int64_t value) {
  return value < 0 ? 0 : static_cast<std::uint32_t>(value);  // kAbsent (INT64_MIN) too
}

// Sorts `items` by `before`, where they are not in that order already, strictly: std::sort's
// order of equal items is its own, and checked first, they keep it.
template <typename Before>
void SortUnlessStrictlyInOrder(std::vector<std::size_t>& items, const Before& before) {
  const auto out_of_order = std::adjacent_find(
      items.begin(), items.end(), [&](std::size_t a, std::size_t b) { return !before(a, b); });
  if (out_of_order != items.end()) std::sort(items.begin(), items.end(), before);
}

// The correlation id of the innermost op running on its thread when each call started (kNoOp
// when none, or when the innermost is one of advisor's own ranges: its wait is not the model's; a
// trace's ops are numbered from 1 in order): ops, advisor's ranges and calls swept in start order
// per thread against a stack of open ones, each launching thread's on one of `threads`.
std::vector<std::uint64_t> LaunchingOps(const HostEvents& host,
                                        const std::vector<ApiCallEvent>& calls, int threads) {
  // A CPU trace launches nothing: its millions of ops are not sorted by thread for no call.
  if (calls.empty()) return {};
  // One index for both: host.ops, then host.advisor_ranges.
  const std::vector<OpEvent>& ops = host.ops;
  const std::vector<HostRange>& own = host.advisor_ranges;
  const auto start_of = [&](std::size_t i) {
    return i < ops.size() ? ops[i].start_ns : own[i - ops.size()].start_ns;
  };
  const auto end_of = [&](std::size_t i) {
    return i < ops.size() ? ops[i].end_ns : own[i - ops.size()].end_ns;
  };
  std::map<ThreadId, std::vector<std::size_t>> calls_by_thread;
  for (std::size_t i = 0; i < calls.size(); ++i) calls_by_thread[calls[i].thread].push_back(i);
  std::vector<std::pair<ThreadId, std::vector<std::size_t>>> launching_threads(
      std::make_move_iterator(calls_by_thread.begin()),
      std::make_move_iterator(calls_by_thread.end()));
  std::vector<std::uint64_t> launching(calls.size(), kNoOp);
  // Each launching thread's calls are its own: the threads' sweeps write apart.
  ParallelFor(launching_threads.size(), threads, [&](std::size_t t) {
    const ThreadId thread = launching_threads[t].first;
    std::vector<std::size_t>& call_indices = launching_threads[t].second;
    std::vector<std::size_t> span_indices;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].thread == thread) span_indices.push_back(i);
    }
    for (std::size_t i = 0; i < own.size(); ++i) {
      if (own[i].thread == thread) span_indices.push_back(ops.size() + i);
    }
    SortUnlessStrictlyInOrder(span_indices, [&](std::size_t a, std::size_t b) {
      if (start_of(a) != start_of(b)) return start_of(a) < start_of(b);
      return end_of(a) > end_of(b);  // the enclosing one first
    });
    SortUnlessStrictlyInOrder(call_indices, [&](std::size_t a, std::size_t b) {
      return calls[a].start_ns < calls[b].start_ns;
    });
    std::vector<std::size_t> open;
    std::size_t next = 0;
    for (std::size_t call : call_indices) {
      const TimeNs at = calls[call].start_ns;
      for (; next < span_indices.size() && start_of(span_indices[next]) <= at; ++next) {
        const TimeNs start = start_of(span_indices[next]);
        while (!open.empty() && end_of(open.back()) <= start) open.pop_back();
        open.push_back(span_indices[next]);
      }
      while (!open.empty() && end_of(open.back()) <= at) open.pop_back();
      if (!open.empty() && open.back() < ops.size()) launching[call] = open.back() + 1;
    }
  });
  return launching;
}

// The runtime and driver calls by correlation id, each id's in start order.
class LaunchCalls {
 public:
  explicit LaunchCalls(const std::vector<ApiCallEvent>& calls) : calls_(calls) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].correlation_id != 0) by_id_[calls[i].correlation_id].push_back(i);
    }
    for (auto& [id, indices] : by_id_) {
      std::sort(indices.begin(), indices.end(), [&](std::size_t a, std::size_t b) {
        return calls[a].start_ns < calls[b].start_ns;
      });
    }
  }

  // The call behind a record with `correlation` that started at `record_start`: the last with
  // that id to start at or before it, else (a clock that puts the record first) the first with
  // that id; null where none has it.
  const ApiCallEvent* Of(std::uint32_t correlation, TimeNs record_start) const {
    const auto found = by_id_.find(correlation);
    if (correlation == 0 || found == by_id_.end()) return nullptr;
    const std::vector<std::size_t>& indices = found->second;
    const auto after =
        std::upper_bound(indices.begin(), indices.end(), record_start,
                         [&](TimeNs at, std::size_t call) { return at < calls_[call].start_ns; });
    return &calls_[after == indices.begin() ? indices.front() : *(after - 1)];
  }

 private:
  const std::vector<ApiCallEvent>& calls_;
  std::unordered_map<std::uint32_t, std::vector<std::size_t>> by_id_;
};

const GpuArgs* GpuArgsOf(const EventChunk& chunk, std::size_t i) {
  const std::uint32_t extra = chunk.extra[i];
  if (extra == EventChunk::kNoExtra || !chunk.extras[extra].has_gpu) return nullptr;
  return &chunk.extras[extra].gpu;
}

}  // namespace

GpuChunkRecords ReadGpuChunk(const TraceStore& store, const EventChunk& chunk) {
  GpuChunkRecords records;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    if (chunk.phase[i] != 'X' || chunk.ts_ns[i] == kAbsent) continue;
    const TimeNs start = chunk.ts_ns[i];
    const TimeNs end = start + chunk.dur_ns[i];
    const std::string& name = store.strings[chunk.name[i]];
    const GpuArgs* gpu = GpuArgsOf(chunk, i);
    const std::uint32_t device =
        gpu && gpu->device >= 0 ? Narrow(gpu->device) : Narrow(chunk.pid[i]);
    const std::uint32_t stream =
        gpu && gpu->stream >= 0 ? Narrow(gpu->stream) : Narrow(chunk.tid[i]);
    const std::uint32_t correlation = Narrow(chunk.correlation[i]);
    switch (chunk.category[i]) {
      case EventCategory::kKernel: {
        KernelEvent kernel;
        kernel.name = name;
        kernel.device = device;
        kernel.stream = stream;
        kernel.start_ns = start;
        kernel.end_ns = end;
        if (gpu) {
          std::copy(std::begin(gpu->grid), std::end(gpu->grid), kernel.grid);
          std::copy(std::begin(gpu->block), std::end(gpu->block), kernel.block);
          kernel.registers_per_thread = gpu->registers_per_thread;
          kernel.static_shared_bytes = gpu->shared_memory;  // Kineto sums static and dynamic
        }
        kernel.correlation_id = correlation;
        if (auto collective = CollectiveOf(store, chunk, i)) {
          records.collective_of_kernel.emplace_back(records.kernels.size(), std::move(*collective));
        }
        records.kernels.push_back(std::move(kernel));
        records.work_by_device[static_cast<int>(device)] += end - start;
        break;
      }
      case EventCategory::kGpuMemcpy: {
        MemcpyEvent copy;
        copy.kind = MemcpyKindOf(name);
        copy.bytes = gpu && gpu->bytes > 0 ? static_cast<std::uint64_t>(gpu->bytes) : 0;
        copy.pageable_host = IsPageableCopy(name);
        copy.device = device;
        copy.stream = stream;
        copy.start_ns = start;
        copy.end_ns = end;
        copy.correlation_id = correlation;
        records.memcpys.push_back(copy);
        records.work_by_device[static_cast<int>(device)] += end - start;
        break;
      }
      case EventCategory::kGpuMemset: {
        MemsetEvent memset;
        memset.bytes = gpu && gpu->bytes > 0 ? static_cast<std::uint64_t>(gpu->bytes) : 0;
        memset.device = device;
        memset.stream = stream;
        memset.start_ns = start;
        memset.end_ns = end;
        memset.correlation_id = correlation;
        records.memsets.push_back(memset);
        records.work_by_device[static_cast<int>(device)] += end - start;
        break;
      }
      case EventCategory::kCudaSync: {
        SyncEvent sync;
        sync.kind = SyncKindOf(name);
        sync.stream = stream;
        sync.start_ns = start;
        sync.end_ns = end;
        sync.correlation_id = correlation;
        records.syncs.push_back(sync);
        break;
      }
      case EventCategory::kCudaRuntime:
      case EventCategory::kCudaDriver: {
        ApiCallEvent call;
        call.name = name;
        call.driver = chunk.category[i] == EventCategory::kCudaDriver;
        call.thread = chunk.tid[i] == kAbsent ? 0 : static_cast<ThreadId>(chunk.tid[i]);
        call.start_ns = start;
        call.end_ns = end;
        call.correlation_id = correlation;
        records.api_calls.push_back(std::move(call));
        break;
      }
      default:
        break;
    }
  }
  return records;
}

GpuRecordReader::GpuRecordReader(const TraceStore& store) {
  // Room for every record the events may make, rather than the join growing to it by moving a
  // GPU trace's hundreds of thousands of records (and their kernels' names) over and over.
  std::size_t kernels = 0, memcpys = 0, memsets = 0, syncs = 0, api_calls = 0;
  for (const EventChunk& chunk : store.chunks) {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (chunk.phase[i] != 'X') continue;
      switch (chunk.category[i]) {
        case EventCategory::kKernel:
          ++kernels;
          break;
        case EventCategory::kGpuMemcpy:
          ++memcpys;
          break;
        case EventCategory::kGpuMemset:
          ++memsets;
          break;
        case EventCategory::kCudaSync:
          ++syncs;
          break;
        case EventCategory::kCudaRuntime:
        case EventCategory::kCudaDriver:
          ++api_calls;
          break;
        default:
          break;
      }
    }
  }
  records_.kernels.reserve(kernels);
  records_.memcpys.reserve(memcpys);
  records_.memsets.reserve(memsets);
  records_.syncs.reserve(syncs);
  records_.api_calls.reserve(api_calls);
}

void GpuRecordReader::Add(GpuChunkRecords&& chunk) {
  const std::size_t first_kernel = records_.kernels.size();
  const auto append = [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  append(records_.kernels, chunk.kernels);
  append(records_.memcpys, chunk.memcpys);
  append(records_.memsets, chunk.memsets);
  append(records_.syncs, chunk.syncs);
  append(records_.api_calls, chunk.api_calls);
  for (auto& [kernel, collective] : chunk.collective_of_kernel) {
    records_.collective_of_kernel.emplace(first_kernel + kernel, std::move(collective));
  }
  for (const auto& [device, work] : chunk.work_by_device) work_by_device_[device] += work;
}

GpuRecords GpuRecordReader::Finish(const HostEvents& host, int threads) {
  const std::vector<std::uint64_t> launching = LaunchingOps(host, records_.api_calls, threads);
  for (std::size_t i = 0; i < records_.api_calls.size(); ++i) {
    records_.api_calls[i].external_id = launching[i];
  }
  const LaunchCalls calls(records_.api_calls);
  // Each record's op is its call's, looked up apart: blocks of records on several threads.
  const auto link = [&](auto& events) {
    constexpr std::size_t kBlock = 4096;
    ParallelFor((events.size() + kBlock - 1) / kBlock, threads, [&](std::size_t block) {
      const std::size_t end = std::min(events.size(), (block + 1) * kBlock);
      for (std::size_t i = block * kBlock; i < end; ++i) {
        const ApiCallEvent* call = calls.Of(events[i].correlation_id, events[i].start_ns);
        events[i].external_id = call ? call->external_id : kNoOp;
      }
    });
  };
  link(records_.kernels);
  link(records_.memcpys);
  link(records_.memsets);
  link(records_.syncs);

  records_.any_device_work =
      !records_.kernels.empty() || !records_.memcpys.empty() || !records_.memsets.empty();
  std::int64_t most = -1;
  for (const auto& [device, work] : work_by_device_) {
    if (work > most) {
      most = work;
      records_.device = device;
    }
  }
  const auto add_launched = [&](const auto& events) {
    for (const auto& event : events) {
      if (static_cast<int>(event.device) != records_.device) continue;
      if (const ApiCallEvent* call = calls.Of(event.correlation_id, event.start_ns)) {
        records_.launched_work.push_back({call->start_ns, event.end_ns});
      }
    }
  };
  add_launched(records_.kernels);
  add_launched(records_.memcpys);
  add_launched(records_.memsets);
  std::sort(records_.launched_work.begin(), records_.launched_work.end(),
            [](const LaunchedWork& a, const LaunchedWork& b) { return a.launch_ns < b.launch_ns; });
  return std::move(records_);
}

GpuRecords ReadGpuRecords(const TraceStore& store, const HostEvents& host) {
  GpuRecordReader reader(store);
  for (const EventChunk& chunk : store.chunks) reader.Add(ReadGpuChunk(store, chunk));
  return reader.Finish(host, 1);
}

const DeviceProperties* DeviceOf(const TraceMetadata& metadata, int device) {
  for (const DeviceProperties& properties : metadata.devices) {
    if (properties.id == device) return &properties;
  }
  return nullptr;
}

std::optional<DeviceLimits> DeviceLimitsOf(const TraceMetadata& metadata, int device) {
  const DeviceProperties* properties = DeviceOf(metadata, device);
  if (properties == nullptr || properties->warp_size <= 0) return std::nullopt;
  DeviceLimits limits;
  limits.sm_count = properties->sm_count;
  limits.max_threads_per_sm = properties->max_threads_per_sm;
  limits.max_blocks_per_sm = properties->max_blocks_per_sm;
  limits.regs_per_sm = properties->regs_per_sm;
  limits.smem_per_sm = properties->shared_memory_per_sm;
  limits.max_warps_per_sm = properties->max_threads_per_sm / properties->warp_size;
  if (!limits.complete()) return std::nullopt;
  return limits;
}

}  // namespace advisor
