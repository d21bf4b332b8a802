#include "engine/trace_analysis/gpu_records.h"

#include <algorithm>
#include <iterator>
#include <type_traits>

#include "engine/trace_analysis/chunk_counts.h"
#include "engine/trace_analysis/event_names.h"
#include "engine/trace_analysis/launching_ops.h"
#include "engine/util/parallel_for.h"

namespace advisor {
namespace {

// The records a store's events may make, each kind's (GpuRecordReader's rooms).
struct GpuRecordCounts {
  std::size_t kernels = 0;
  std::size_t memcpys = 0;
  std::size_t memsets = 0;
  std::size_t syncs = 0;
  std::size_t api_calls = 0;

  GpuRecordCounts& operator+=(const GpuRecordCounts& other) {
    kernels += other.kernels;
    memcpys += other.memcpys;
    memsets += other.memsets;
    syncs += other.syncs;
    api_calls += other.api_calls;
    return *this;
  }
};

constexpr std::uint64_t kNoOp = 0;

// Kernels, copies and memsets are work on a device; a sync is not.
template <typename Event>
constexpr bool kIsDeviceWork = !std::is_same_v<Event, SyncEvent>;

std::uint32_t Narrow(std::int64_t value) {
  return value < 0 ? 0 : static_cast<std::uint32_t>(value);  // kAbsent (INT64_MIN) too
}

// The runtime and driver calls by correlation id, each id's in start order: one sorted list, not
// a table of lists (a GPU trace makes one call an op it runs, hundreds of thousands).
class LaunchCalls {
 public:
  LaunchCalls(const std::vector<ApiCallEvent>& calls, int threads) : calls_(calls) {
    keys_.resize(calls.size());
    constexpr std::size_t kBlock = 16384;
    const std::size_t blocks = (calls.size() + kBlock - 1) / kBlock;
    // Each block checked with the first of the next: every pair of neighbours is.
    std::vector<char> in_order(blocks);
    ParallelFor(blocks, threads, [&](std::size_t block) {
      const std::size_t end = std::min(calls.size(), (block + 1) * kBlock);
      for (std::size_t i = block * kBlock; i < end; ++i) {
        keys_[i] = {calls[i].correlation_id, calls[i].start_ns, i};
      }
      in_order[block] = std::is_sorted(
          calls.begin() + static_cast<std::ptrdiff_t>(block * kBlock),
          calls.begin() + static_cast<std::ptrdiff_t>(std::min(calls.size(), end + 1)),
          [](const ApiCallEvent& a, const ApiCallEvent& b) {
            return Key{a.correlation_id, a.start_ns, 0} < Key{b.correlation_id, b.start_ns, 0};
          });
    });
    // Kineto numbers the calls as they are made, mostly in the file's order. The keys are
    // distinct (their calls' indices last), so any sort puts them in one order.
    if (std::find(in_order.begin(), in_order.end(), 0) != in_order.end()) {
      std::sort(keys_.begin(), keys_.end());
    }
  }

  // The call behind a record with `correlation` that started at `record_start`: the last with
  // that id to start at or before it, else (a clock that puts the record first) the first with
  // that id; null where none has it.
  const ApiCallEvent* Of(std::uint32_t correlation, TimeNs record_start) const {
    if (correlation == 0) return nullptr;
    const auto first = std::lower_bound(keys_.begin(), keys_.end(), Key{correlation, 0, 0},
                                        [](const Key& a, const Key& b) { return a.id < b.id; });
    if (first == keys_.end() || first->id != correlation) return nullptr;
    const auto after = std::upper_bound(
        first, keys_.end(), Key{correlation, record_start, 0}, [](const Key& a, const Key& b) {
          return a.id != b.id ? a.id < b.id : a.start_ns < b.start_ns;
        });
    return &calls_[(after == first ? first : after - 1)->call];
  }

 private:
  // A call's id, start and index: of calls with one id and one start, Of finds the one written
  // last.
  struct Key {
    std::uint32_t id = 0;
    TimeNs start_ns = 0;
    std::size_t call = 0;
    bool operator<(const Key& other) const {
      if (id != other.id) return id < other.id;
      if (start_ns != other.start_ns) return start_ns < other.start_ns;
      return call < other.call;
    }
  };

  const std::vector<ApiCallEvent>& calls_;
  std::vector<Key> keys_;  // sorted
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

GpuRecordReader::GpuRecordReader(const TraceStore& store, int threads) {
  // Room for every record the events may make, rather than the join growing to it by moving a
  // GPU trace's hundreds of thousands of records (and their kernels' names) over and over.
  const GpuRecordCounts counts =
      CountOverChunks<GpuRecordCounts>(store, threads, [](const EventChunk& chunk) {
        GpuRecordCounts counts;
        for (std::size_t i = 0; i < chunk.size(); ++i) {
          if (chunk.phase[i] != 'X') continue;
          switch (chunk.category[i]) {
            case EventCategory::kKernel:
              ++counts.kernels;
              break;
            case EventCategory::kGpuMemcpy:
              ++counts.memcpys;
              break;
            case EventCategory::kGpuMemset:
              ++counts.memsets;
              break;
            case EventCategory::kCudaSync:
              ++counts.syncs;
              break;
            case EventCategory::kCudaRuntime:
            case EventCategory::kCudaDriver:
              ++counts.api_calls;
              break;
            default:
              break;
          }
        }
        return counts;
      });
  records_.kernels.reserve(counts.kernels);
  records_.memcpys.reserve(counts.memcpys);
  records_.memsets.reserve(counts.memsets);
  records_.syncs.reserve(counts.syncs);
  records_.api_calls.reserve(counts.api_calls);
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
  records_.any_device_work =
      !records_.kernels.empty() || !records_.memcpys.empty() || !records_.memsets.empty();
  std::int64_t most = -1;
  for (const auto& [device, work] : work_by_device_) {
    if (work > most) {
      most = work;
      records_.device = device;
    }
  }

  LinkCallsToOps(host, records_.api_calls, threads);
  const LaunchCalls calls(records_.api_calls, threads);
  // Each record's op is its call's, looked up apart: blocks of records on several threads, each
  // block's work on `device` kept with its call's start, the blocks' joined in order.
  const auto link = [&](auto& events) {
    using Event = typename std::decay_t<decltype(events)>::value_type;
    constexpr std::size_t kBlock = 4096;
    std::vector<std::vector<LaunchedWork>> work((events.size() + kBlock - 1) / kBlock);
    ParallelFor(work.size(), threads, [&](std::size_t block) {
      const std::size_t end = std::min(events.size(), (block + 1) * kBlock);
      for (std::size_t i = block * kBlock; i < end; ++i) {
        const ApiCallEvent* call = calls.Of(events[i].correlation_id, events[i].start_ns);
        events[i].external_id = call ? call->external_id : kNoOp;
        if constexpr (kIsDeviceWork<Event>) {
          if (call && static_cast<int>(events[i].device) == records_.device) {
            work[block].push_back({call->start_ns, events[i].end_ns});
          }
        }
      }
    });
    for (const std::vector<LaunchedWork>& found : work) {
      records_.launched_work.insert(records_.launched_work.end(), found.begin(), found.end());
    }
  };
  link(records_.kernels);
  link(records_.memcpys);
  link(records_.memsets);
  link(records_.syncs);
  // Work launched at one time may come in either order: the device's clock takes the latest end
  // of all launched before a time (DeviceClockSteps).
  const auto by_launch = [](const LaunchedWork& a, const LaunchedWork& b) {
    return a.launch_ns < b.launch_ns;
  };
  if (!std::is_sorted(records_.launched_work.begin(), records_.launched_work.end(), by_launch)) {
    std::sort(records_.launched_work.begin(), records_.launched_work.end(), by_launch);
  }
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
