// The merged record of one profiled window: plain structs that every probe emits and every
// analysis reads. Nothing here knows ATen, CUPTI or Lua, so analysis code and its tests build
// without LibTorch or a GPU.
//
// Clock: every timestamp is nanoseconds on one host clock (std::chrono::steady_clock). Probes
// whose native clock differs (CUPTI) convert before they emit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/timeline/module_path.h"
#include "engine/timeline/op_name.h"

namespace advisor {

using TimeNs = std::int64_t;
using ThreadId = std::uint64_t;

// Which RecordFunction scope an op event came from.
enum class OpScope : std::uint8_t {
  kForward,   // an ATen operator call (RecordScope::FUNCTION)
  kBackward,  // an autograd node running (RecordScope::BACKWARD_FUNCTION), e.g. GatherBackward0
  kUser,      // a user scope (RecordScope::USER_SCOPE)
  kOther,
};

// One ATen operator, autograd node or user scope, with its nesting on its thread. A trace holds
// millions: what only the op probe counts (OpCounts), autograd's numbering (OpSequence), which
// torch's legacy trace never records, and the correlation id its GPU work carries, which a trace
// without GPU work needs none of, are kept beside them (Timeline::CorrelationOf), and the depth
// fits beside the name and scope: an op is 32 bytes.
struct OpEvent {
  // The deepest nesting an op records: the probe counts an op nested deeper as this deep.
  static constexpr int kMaxDepth = INT16_MAX;

  OpName name;               // "aten::gather", "GatherBackward0", ...
  OpScope scope = OpScope::kOther;
  // 0 for an op called directly by the interpreter or the engine; a trace records none.
  std::int16_t depth = 0;
  ThreadId thread = 0;       // the thread it ran on (RecordFunction::threadId)
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};
static_assert(sizeof(OpEvent) == 32, "a trace holds millions of ops: keep them narrow");

// How autograd numbered an op: held beside the ops (Timeline::SequenceOf) rather than in each,
// so that the 2.35 M ops of a legacy trace, which numbers none, do not carry 16 bytes each. The
// probe and Kineto's traces number a forward op and the backward nodes it made alike.
struct OpSequence {
  std::int64_t seq_nr = -1;     // autograd sequence number; -1 where none
  ThreadId forward_thread = 0;  // for backward nodes: thread of the forward op that made them

  bool Numbered() const { return seq_nr >= 0 || forward_thread != 0; }
};

// What the op probe counts of an op in a window on a CPU model, and no trace records: held
// beside the ops (Timeline::CountsOf) rather than in each, so that a trace's millions of ops do
// not carry 24 bytes they never fill.
struct OpCounts {
  // Minor page faults the op's thread took while it ran (first touches of fresh memory), counted
  // for the top-level ops of a window on a CPU model; -1 where not counted.
  std::int64_t page_faults = -1;
  // Of a top-level op's tensor inputs: the largest one's elements, and the elements of their
  // shapes broadcast together (what an elementwise op writes: a - b of [B, T, 1, D] and
  // [B, 1, T, D] writes B x T x T x D). -1 where not recorded, or where the shapes do not
  // broadcast (a matmul's).
  std::int64_t input_elements = -1;
  std::int64_t broadcast_elements = -1;

  bool Counted() const {
    return page_faults >= 0 || input_elements >= 0 || broadcast_elements >= 0;
  }
};

// What a marker op saw. Markers bracket the calls of instrumented module instances.
enum class MarkerKind {
  kForwardEnter,    // forward reached the module's inputs
  kForwardExit,     // the module's forward returned
  kBackwardBegin,   // the gradient reached the module's outputs ("before backward of X")
  kBackwardEnd,     // the module's input gradient is done ("after backward of X")
};

struct MarkerEvent {
  ModulePath path;  // module instance path, e.g. "blocks.5.mlp"
  MarkerKind kind = MarkerKind::kForwardEnter;
  ThreadId thread = 0;
  TimeNs time_ns = 0;
};

// The phases of a training step; kOutside is a time in no step. kLoss is a script's time between
// the model's forward returning and backward() (its loss function, metrics, logging: docs/
// script-mode.md, "Steps"), and the backward nodes its ops made (engine/analysis/placement); a
// model.pt's loss is part of its forward. Last, so that each phase keeps its code (the probe's).
enum class Phase { kData, kForward, kBackward, kOptimizer, kOutside, kLoss };

// One stretch of a step spent in one phase, on the host clock.
struct PhaseSpan {
  Phase phase = Phase::kForward;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

// One training step: from its start to the end of its optimizer step, cut into phases in time
// order, each stretch ending where the next begins. A model.pt step has at most four stretches:
// data (its input stage's batch), forward (loss included), backward, optimizer. A script's step
// has a loss stretch after each forward; with gradient accumulation it has a data, forward, loss
// and backward stretch per micro-batch before its optimizer stretch; its data stretches are the
// waits for the next batch.
struct StepSpan {
  int index = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::vector<PhaseSpan> phases;

  // The phase at `time`, which lies in the step: that of the last stretch starting at or before
  // it (a step's first stretch starts at start_ns).
  Phase PhaseAt(TimeNs time) const {
    Phase phase = Phase::kOutside;
    for (const PhaseSpan& span : phases) {
      if (span.start_ns > time) break;
      phase = span.phase;
    }
    return phase;
  }

  // The time the step spent in `phase`, all its stretches together.
  TimeNs TimeIn(Phase phase) const {
    TimeNs total = 0;
    for (const PhaseSpan& span : phases) {
      if (span.phase == phase) total += span.end_ns - span.start_ns;
    }
    return total;
  }
};

// A step of the four classic phases from its boundaries; a boundary equal to the previous one
// (no input stage: data_end_ns == start_ns) leaves that phase out.
inline StepSpan StepOfPhases(int index, TimeNs start_ns, TimeNs data_end_ns,
                             TimeNs forward_end_ns, TimeNs backward_end_ns, TimeNs end_ns) {
  StepSpan step;
  step.index = index;
  step.start_ns = start_ns;
  step.end_ns = end_ns;
  const std::pair<Phase, TimeNs> ends[] = {{Phase::kData, data_end_ns},
                                           {Phase::kForward, forward_end_ns},
                                           {Phase::kBackward, backward_end_ns},
                                           {Phase::kOptimizer, end_ns}};
  TimeNs begin = start_ns;
  for (const auto& [phase, end] : ends) {
    if (end <= begin) continue;
    step.phases.push_back({phase, begin, end});
    begin = end;
  }
  return step;
}

// ---- GPU activity (filled by probes/cupti; empty where no GPU probe ran) ----

struct KernelEvent {
  std::string name;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::int32_t registers_per_thread = 0;
  std::int32_t static_shared_bytes = 0;
  std::int32_t dynamic_shared_bytes = 0;
  std::uint32_t correlation_id = 0;       // CUPTI's id, shared with the launching API call
  std::uint64_t external_id = 0;          // the op's correlation id (Timeline::CorrelationOf)
};

enum class MemcpyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice, kOther };

struct MemcpyEvent {
  MemcpyKind kind = MemcpyKind::kOther;
  std::uint64_t bytes = 0;
  bool pageable_host = false;  // the host side was pageable memory (a staged, synchronous copy)
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t correlation_id = 0;
  std::uint64_t external_id = 0;
};

struct MemsetEvent {
  std::uint64_t bytes = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t correlation_id = 0;
  std::uint64_t external_id = 0;
};

enum class SyncKind { kStream, kDevice, kEvent, kStreamWaitEvent, kContext, kOther };

struct SyncEvent {
  SyncKind kind = SyncKind::kOther;
  std::uint32_t stream = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t correlation_id = 0;
  std::uint64_t external_id = 0;
};

// A CUDA runtime or driver API call on the host.
struct ApiCallEvent {
  std::string name;  // "cudaLaunchKernel", "cudaStreamSynchronize", ...
  bool driver = false;
  ThreadId thread = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t correlation_id = 0;
  std::uint64_t external_id = 0;
};

// What a probe could and could not see in this window. Reports show it; nothing is faked.
struct ProbeStatus {
  std::string probe;   // "ops", "markers", "cupti", "memory"
  bool active = false;
  std::string detail;  // why inactive, or notes such as "3 records dropped"
  std::uint64_t dropped_records = 0;
};

// One allocation (bytes > 0) or free (bytes < 0) as the allocator reported it to c10's memory
// reporting, the hook torch's profiler uses for profile_memory: CPU tensors and the CUDA caching
// allocator's blocks alike. A free of memory allocated before the window is reported on CUDA and
// not on the CPU (its allocator did not track the block's size then).
struct MemoryEvent {
  std::uint64_t address = 0;
  std::int64_t bytes = 0;
  std::int32_t device = -1;  // the CUDA device's index; -1: host memory
  ThreadId thread = 0;       // the thread that allocated or freed
  TimeNs time_ns = 0;
};

// What the device's allocator held when a window's recording began (CUDA's memory_allocated): the
// window's MemoryEvents show those allocations only where they are freed.
struct MemoryAtStart {
  std::int32_t device = 0;  // the CUDA device's index, as MemoryEvent's
  std::int64_t bytes = 0;
};

struct Timeline {
  std::vector<StepSpan> steps;
  std::vector<OpEvent> ops;
  std::vector<MarkerEvent> markers;
  std::vector<MemoryEvent> memory;  // in time order on each thread
  std::optional<MemoryAtStart> memory_at_start;  // absent where the door keeps no counter (CPU)
  std::vector<KernelEvent> kernels;
  std::vector<MemcpyEvent> memcpys;
  std::vector<MemsetEvent> memsets;
  std::vector<SyncEvent> syncs;
  std::vector<ApiCallEvent> api_calls;
  std::vector<ProbeStatus> probes;
  // Index for index with ops up to the last op counted (CountsOf reads past it as uncounted);
  // empty where the probe counted nothing, as in every trace.
  std::vector<OpCounts> op_counts;
  // Index for index with ops up to the last op numbered (SequenceOf reads past it as unnumbered);
  // empty where no op has a sequence number, as in torch's legacy traces.
  std::vector<OpSequence> op_sequences;
  // Index for index with ops up to the last op with one: the external correlation id the op
  // pushed for its GPU work, which that work's records name (KernelEvent::external_id, ...).
  // Empty where no op has one: a trace without GPU work, whose millions of ops would carry 8
  // bytes each for nothing (a trace's ids are each op's index + 1, filled where it has GPU work).
  std::vector<std::uint64_t> op_correlation_ids;
  // Host time of one first touch of a fresh memory page, measured in the process that ran the
  // window where its ops counted their page faults (OpCounts::page_faults); 0 where they did not.
  double page_fault_ns = 0;

  // ops[i]'s counts: all -1 where the probe counted none of it.
  const OpCounts& CountsOf(std::size_t i) const {
    static const OpCounts kNone;
    return i < op_counts.size() ? op_counts[i] : kNone;
  }
  // Sets ops[i]'s counts (ops[i] exists).
  void SetCounts(std::size_t i, const OpCounts& counts) {
    SetBeside(op_counts, i, counts, counts.Counted());
  }
  // ops[i]'s sequence number and forward thread: -1 and 0 where it has none.
  const OpSequence& SequenceOf(std::size_t i) const {
    static const OpSequence kNone;
    return i < op_sequences.size() ? op_sequences[i] : kNone;
  }
  // Sets ops[i]'s sequence number and forward thread (ops[i] exists).
  void SetSequence(std::size_t i, const OpSequence& sequence) {
    SetBeside(op_sequences, i, sequence, sequence.Numbered());
  }
  // ops[i]'s correlation id: 0 where it pushed none.
  std::uint64_t CorrelationOf(std::size_t i) const {
    return i < op_correlation_ids.size() ? op_correlation_ids[i] : 0;
  }
  // Sets ops[i]'s correlation id (ops[i] exists).
  void SetCorrelation(std::size_t i, std::uint64_t id) {
    SetBeside(op_correlation_ids, i, id, id != 0);
  }
  // Drops the ops `remove` says to drop, their counts, numbers and correlation ids with them,
  // keeping the others' order.
  template <typename Predicate>
  void RemoveOpsIf(Predicate remove) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (remove(ops[i])) continue;
      if (kept < op_counts.size()) op_counts[kept] = CountsOf(i);  // i >= kept: not yet moved
      if (kept < op_sequences.size()) op_sequences[kept] = SequenceOf(i);
      if (kept < op_correlation_ids.size()) op_correlation_ids[kept] = CorrelationOf(i);
      ops[kept++] = ops[i];
    }
    ops.resize(kept);
    if (op_counts.size() > kept) op_counts.resize(kept);
    if (op_sequences.size() > kept) op_sequences.resize(kept);
    if (op_correlation_ids.size() > kept) op_correlation_ids.resize(kept);
  }

 private:
  // A column beside the ops holds nothing until an op has a value (`filled`), then one entry per
  // op: a trace without any keeps it empty.
  template <typename Value>
  void SetBeside(std::vector<Value>& column, std::size_t i, const Value& value, bool filled) {
    if (!filled && i >= column.size()) return;
    if (i >= column.size()) column.resize(ops.size());
    column[i] = value;
  }
};

}  // namespace advisor
