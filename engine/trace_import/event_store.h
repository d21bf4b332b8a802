// What the trace reader keeps of a torch.profiler (Kineto) Chrome trace: the fields advisor uses,
// in columns, names interned. Everything else in the file is skipped while parsing.
//
// Events are stored in chunks, each the events of one parsed batch in file order, so the store
// grows without reallocating (and briefly doubling) one large array per field.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/util/freed_memory.h"

namespace advisor {

// An integer argument the event did not have.
inline constexpr std::int64_t kAbsent = INT64_MIN;

// The event's "cat". kNone: no "cat" at all, as in traces written by torch.autograd.profiler's
// own exporter (LibTorch built without Kineto, such as Debian's 1.13).
enum class EventCategory : std::uint8_t {
  kNone,
  kCpuOp,              // "cpu_op": an ATen op or an autograd node
  kUserAnnotation,     // "user_annotation": record_function ranges, ProfilerStep#N, Optimizer.step#
  kPythonFunction,     // "python_function" (with_stack): "nn.Module: Linear_0", Python frames
  kKernel,             // "kernel"
  kGpuMemcpy,          // "gpu_memcpy"
  kGpuMemset,          // "gpu_memset"
  kCudaRuntime,        // "cuda_runtime": cudaLaunchKernel, cudaStreamSynchronize, ...
  kCudaDriver,         // "cuda_driver": cuLaunchKernel, ...
  kCudaSync,           // "cuda_sync": CUPTI's synchronisation records
  kGpuUserAnnotation,  // "gpu_user_annotation": record_function ranges projected onto a stream
  kInstant,            // "cpu_instant_event" and "memory": [memory] allocation records
  kFlowForwardBackward,  // "fwdbwd": forward op -> its backward node
  kFlowLaunch,         // "ac2g": launch -> GPU work
  kOther,              // any other category, kept by name only
};

EventCategory CategoryFromName(std::string_view cat);

// Interned strings: id 0 is "". Ids are dense, in order of first sight.
class StringTable {
 public:
  StringTable();
  std::uint32_t Intern(std::string_view text);
  const std::string& operator[](std::uint32_t id) const { return strings_[id]; }
  std::size_t size() const { return strings_.size(); }

 private:
  // A trace names its few hundred ops and kernels over and over, kernels in hundreds of bytes:
  // the string last interned in each slot (chosen by its length and ends) is compared first,
  // which costs less than hashing the whole string for the index.
  static constexpr std::size_t kRecentSlots = 256;
  std::array<std::uint32_t, kRecentSlots> recent_{};  // ids; 0 ("") in a slot never used

  std::deque<std::string> strings_;  // stable addresses: the index keys view them
  std::unordered_map<std::string_view, std::uint32_t> index_;
};

// Launch configuration and placement of a kernel, copy or memset.
struct GpuArgs {
  std::int32_t device = -1;
  std::int32_t stream = -1;
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::int32_t registers_per_thread = 0;
  std::int32_t shared_memory = 0;  // bytes, static and dynamic together (Kineto sums them)
  std::int64_t bytes = kAbsent;    // copies and memsets
};

// One [memory] record of profile_memory=True: an allocation (bytes > 0) or a free (bytes < 0).
struct MemoryArgs {
  std::int64_t bytes = 0;
  std::int64_t total_allocated = kAbsent;
  std::int64_t total_reserved = kAbsent;
  std::int32_t device_type = -1;  // c10::DeviceType: 0 CPU, 1 CUDA
  std::int32_t device_id = -1;
};

// A collective's description, on record_param_comms ops and (newer Kineto) NCCL kernels.
struct CollectiveArgs {
  std::uint32_t name = 0;            // "allreduce", "allgather", ...
  std::uint32_t process_group = 0;   // "Process Group Name"
  std::uint32_t group_description = 0;  // "Process Group Description", e.g. "default_pg"
  std::int64_t seq = kAbsent;        // "Seq": the collective's number within its group
  std::int64_t group_size = kAbsent;
  std::int64_t in_elements = kAbsent;
  std::int64_t out_elements = kAbsent;
  std::uint32_t dtype = 0;
};

// Arguments few events have; EventChunk::extras holds them for those that do.
struct EventExtras {
  GpuArgs gpu;
  MemoryArgs memory;
  CollectiveArgs collective;
  std::int64_t python_id = kAbsent;         // python_function events: "Python id"
  std::int64_t python_parent_id = kAbsent;  // and "Python parent id"
  std::uint32_t module_hierarchy = 0;       // TorchScript ops: "Module Hierarchy"
  bool has_gpu = false;
  bool has_memory = false;
  bool has_collective = false;
};

// A column of a field that whole traces go without (torch 1.13's own exporter writes no pid
// number, ids or arguments): where no event of its chunk has the field, it holds nothing, and
// every event reads as `kMissing`. A legacy trace's chunks then hold only the six columns it fills.
template <typename T, T kMissing>
class SparseColumn {
 public:
  void reserve(std::size_t events) { values_.reserve(events); }
  void push_back(T value) { values_.push_back(value); }
  T operator[](std::size_t i) const { return values_.empty() ? kMissing : values_[i]; }
  // Over the values held: none once dropped.
  typename std::vector<T>::iterator begin() { return values_.begin(); }
  typename std::vector<T>::iterator end() { return values_.end(); }

  // Once the chunk is complete: lets the values go where every one is kMissing.
  void DropIfAllMissing() {
    for (T value : values_) {
      if (value != kMissing) return;
    }
    std::vector<T>().swap(values_);
  }
  // Lets the values go, their pages handed back to the system at once (FreeReturningPages).
  void FreeReturningPages() { advisor::FreeReturningPages(values_); }

 private:
  std::vector<T> values_;
};

// One batch of events in file order, a column per field.
struct EventChunk {
  static constexpr std::uint32_t kNoExtra = UINT32_MAX;

  std::vector<EventCategory> category;
  std::vector<char> phase;             // "ph": 'X' complete, 'i' instant, 's'/'f' flow, 'M' ...
  std::vector<std::uint32_t> name;     // into TraceStore::strings
  SparseColumn<std::int64_t, kAbsent> pid;  // kAbsent when not a number ("CPU functions")
  std::vector<std::int64_t> tid;       // "stream 7" is read as 7
  std::vector<std::int64_t> ts_ns;
  std::vector<std::int64_t> dur_ns;    // 0 when absent
  SparseColumn<std::int64_t, kAbsent> external_id;      // "External id"
  SparseColumn<std::int64_t, kAbsent> correlation;      // "correlation"; a flow's "id"
  SparseColumn<std::int64_t, kAbsent> sequence_number;  // "Sequence number"
  SparseColumn<std::int64_t, kAbsent> forward_thread;   // "Fwd thread id"
  // record_shapes' "Input type" of the first input: "float", "c10::BFloat16"; 0 when absent.
  SparseColumn<std::uint32_t, 0> input_type;
  SparseColumn<std::uint32_t, kNoExtra> extra;  // index into extras
  std::vector<EventExtras> extras;

  std::size_t size() const { return name.size(); }
  // Once every event is in: the sparse columns no event filled hold nothing.
  void DropMissingColumns();
  // Lets every column go, each one's pages handed back to the system at once: a chunk read into
  // records is let go on its reader's thread, beside the others' (TakeTraceRecords).
  void FreeReturningPages();
};

// A GPU as deviceProperties describes it.
struct DeviceProperties {
  int id = 0;
  std::string name;
  std::int64_t total_memory_bytes = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;  // absent from older traces: 0
  int regs_per_sm = 0;
  std::int64_t shared_memory_per_sm = 0;
  int warp_size = 0;
};

struct ProcessGroupConfig {
  std::string name;
  std::string description;
  std::vector<int> ranks;
};

// distributedInfo: written by torch.profiler when torch.distributed was initialised.
struct DistributedInfo {
  std::string backend;  // "nccl", "gloo"
  int rank = -1;
  int world_size = -1;
  std::vector<ProcessGroupConfig> groups;
};

struct TraceMetadata {
  bool has_trace_events_object = false;  // {"traceEvents": [...]} (Kineto); else a bare array
  std::optional<std::int64_t> base_time_ns;  // baseTimeNanoseconds
  std::vector<DeviceProperties> devices;
  std::optional<DistributedInfo> distributed;
  // otherData's "generator": "advisor" in advisor's own trace.json (engine/report/chrome_trace.h),
  // whose ProfilerStep#N ranges belong to its profiled windows, one host process each; "" in a
  // torch.profiler trace.
  std::string generator;
};

// What reading found besides events: sizes, and the events it had to leave out.
struct ReadStats {
  std::uint64_t file_bytes = 0;  // on disk
  std::uint64_t json_bytes = 0;  // after inflating
  bool compressed = false;
  std::string inflater;  // of a compressed file: InflaterName() (gzip_members.h)
  std::uint64_t events = 0;
  std::uint64_t skipped_events = 0;
  std::vector<std::string> problems;  // the first few skips and notes, "byte N: ..." each
  bool truncated = false;             // the file ended inside the event array
  // A plain file's chunks, and those whose guessed start state was wrong (scanned again).
  std::uint64_t chunks = 0;
  std::uint64_t chunks_scanned_again = 0;
};

struct TraceStore {
  std::string path;
  StringTable strings;
  std::vector<EventChunk> chunks;
  TraceMetadata metadata;
  ReadStats stats;

  std::size_t events() const;
};

}  // namespace advisor
