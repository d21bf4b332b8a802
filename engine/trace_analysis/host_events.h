// The host side of a trace, sorted into what the analysis uses: ops (ATen operators, autograd
// nodes, torch.optim's and the DataLoader's ranges, communication calls), the ranges that
// delimit steps and phases, and the ranges that name modules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// A record_function range, or a ProfilerStep#N, on one thread.
struct HostRange {
  std::string name;
  ThreadId thread = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

// A range that names a module: "nn.Module: Linear_0" (with_stack), or a record_function label.
struct ModuleRange {
  std::string
      component;     // one path component: "Linear_0", "encoder", "DistributedDataParallel.forward"
  std::string type;  // the module's class where the trace says ("Linear"), else ""
  ThreadId thread = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

// What a trace says of a collective: record_param_comms's arguments (and, in newer Kineto, the
// NCCL kernel's own).
struct CollectiveDescription {
  std::string name;           // "allreduce", "allgather", ...
  std::string process_group;  // "Process Group Name"
  std::int64_t seq = -1;      // "Seq": its number within the group; -1 where not recorded
};

struct HostEvents {
  // Ops as the engine's op probe records them, the autograd engine's wrappers left out. Each has
  // its own correlation id, which GPU records are linked to: its index + 1, held nowhere
  // (BuildProfilerTraceWindow spells them out where the trace has GPU records).
  std::vector<OpEvent> ops;
  // Their sequence numbers and forward threads, index for index up to the last op numbered
  // (Timeline::op_sequences): empty in a legacy trace, which numbers none.
  std::vector<OpSequence> op_sequences;
  // The backward nodes (the ops of OpScope::kBackward), by index into ops, ascending: where the
  // steps' phases are cut (StepsOf) without a pass over every op (a legacy trace's 2 M ops hold
  // some 50 k nodes).
  std::vector<std::size_t> backward_nodes;
  std::vector<HostRange> profiler_steps;   // ProfilerStep#N
  std::vector<HostRange> optimizer_steps;  // Optimizer.step#...
  std::vector<HostRange> data_loader;      // enumerate(DataLoader)#...__next__
  // advisor's own (IsAdvisorOwn): neither ops nor modules; the CUDA calls made inside are no op's.
  std::vector<HostRange> advisor_ranges;
  std::vector<ModuleRange> modules;
  // advisor's own trace.json only (TraceMetadata::generator): the phases its probe cut each step
  // into (its "advisor" phase spans, named as PhaseName names them, on the track of the steps),
  // and its profiled windows, one span each on its run track from the window's first recorded
  // instant to its last, named by the window's label (AdvisorWindowLabel): the windows ran one
  // after the other. Empty in any other trace.
  std::vector<HostRange> advisor_phases;
  std::vector<HostRange> advisor_windows;
  // Its modules' backward spans, each named by the instance's path, between the backward markers
  // the bisection placed that module's backward ops with: its ops' thread.
  std::vector<HostRange> advisor_backward_spans;
  // By op correlation id: the ops that describe a collective (record_param_comms).
  std::unordered_map<std::uint64_t, CollectiveDescription> collective_of_op;
  // Backward nodes name their forward op's thread by RecordFunction's own thread number; it was
  // mapped to the thread's id in the trace (through the forward-backward flows) for these nodes.
  bool backward_linked = false;
  // The dtype the matrix multiplies and convolutions took in, most of their time ("float32",
  // "bfloat16"), from record_shapes' input types; "" when the trace does not say.
  std::string compute_dtype;
  bool has_sequence_numbers = false;
  std::vector<std::string> notes;  // for the report's data quality
};

struct HostChunkRecords;  // host_chunk_records.h

// Joins the host records of a store's chunks (HostChunkReader), each chunk's in file order, into
// its host events: each chunk's records may go once added (ReadTraceRecords).
class HostEventReader {
 public:
  // Made while `store` holds all its events: it makes room for the ops they may hold, counted
  // on up to `threads` threads.
  explicit HostEventReader(const TraceStore& store, int threads = 1);
  ~HostEventReader();
  // Copies the ops of store.chunks[k]'s records (their sequence numbers, a legacy trace's
  // operator lists) into their place among every chunk's, once the chunks before it are counted
  // (it waits for that): several threads may place chunks at once, each chunk once, chunk k only
  // where chunk k - 1's Place has begun or will begin on another thread. Leaves `chunk` without
  // them.
  void Place(std::size_t k, HostChunkRecords& chunk);
  void Add(HostChunkRecords&& chunk);  // the next of store.chunks', placed
  // What needs every chunk's records, on up to `threads` threads.
  HostEvents Finish(int threads);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads the host events of `store`. Times are the trace's own clock in ns.
HostEvents ReadHostEvents(const TraceStore& store);

// The collective arguments of event i of `chunk`, when it has any.
std::optional<CollectiveDescription> CollectiveOf(const TraceStore& store, const EventChunk& chunk,
                                                  std::size_t i);

}  // namespace advisor
