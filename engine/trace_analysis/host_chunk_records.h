// What one chunk of a trace's events says of its host side, read on any thread: the chunks of a
// store are read in parallel, each into its own HostChunkRecords with its ops numbered from 0,
// and HostEventReader joins them in file order, so the host events are those one thread reading
// every chunk in turn would make (ReadTraceRecords).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_events.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// What an op is made of, copied out of its event: a label is placed once the whole trace is read,
// and its chunk may be gone by then.
struct EventFields {
  std::uint32_t name = 0;  // into TraceStore::strings
  TimeNs start = 0;
  TimeNs end = 0;
  std::int64_t sequence_number = kAbsent;
  std::int64_t forward_thread = kAbsent;
  std::uint32_t input_type = 0;
  std::optional<CollectiveDescription> collective;
};

// A backward node as read, before its forward thread is known.
struct PendingNode {
  std::size_t op = 0;
  std::int64_t recorded_forward_thread = 0;  // RecordFunction's thread number
};

// One end of a forward-backward flow: "s" at the forward op, "f" at its backward node, with one id.
struct FlowEnd {
  std::int64_t id = 0;
  bool start = false;  // "s"; else "f"
  ThreadId thread = 0;
  TimeNs at = 0;
};

// An uncategorised operator: ops[op], the order-th event of the file. Held by index, not by copy:
// a legacy trace's events are nearly all operators.
struct OperatorAt {
  std::uint32_t op = 0;
  std::uint32_t order = 0;
};

// An uncategorised label to place once every operator of its thread is known.
struct Label {
  EventFields fields;
  std::uint32_t order = 0;  // in the file
};

struct HostChunkRecords {
  // The chunk's ops, numbered from 0 here: the join moves every index below past the chunks before.
  std::vector<OpEvent> ops;
  // Index for index with ops up to the last one numbered; empty where none is.
  std::vector<OpSequence> op_sequences;
  bool has_sequence_numbers = false;
  // By op index: the collectives record_param_comms describes, in op order.
  std::vector<std::pair<std::size_t, CollectiveDescription>> collective_of_op;
  std::vector<PendingNode> pending;         // backward nodes whose forward thread is to link
  std::vector<std::size_t> backward_nodes;  // every backward node, by op index
  std::vector<FlowEnd> flow_ends;           // in file order
  std::set<ThreadId> forward_threads;       // threads of numbered forward ops
  std::map<std::uint32_t, TimeNs> compute_time_by_input_type;  // IsComputeOp's ops' time
  std::vector<HostRange> profiler_steps;
  std::vector<HostRange> optimizer_steps;
  std::vector<HostRange> data_loader;
  std::vector<HostRange> advisor_ranges;
  std::vector<HostRange> advisor_phases;
  std::vector<HostRange> advisor_windows;
  std::vector<HostRange> advisor_backward_spans;
  std::vector<ModuleRange> modules;
  // The legacy exporter's uncategorised events by thread: operators (ops, by index) and labels.
  std::map<ThreadId, std::vector<OperatorAt>> operators;
  std::map<ThreadId, std::vector<Label>> labels;

  // Appends an op made of `event`, named `name`, whose text is `text` (TraceStore::strings'
  // event.name).
  void AddOp(const EventFields& event, OpName name, const std::string& text, ThreadId thread,
             OpScope scope);
};

// Reads chunks of one store into HostChunkRecords; Read may be called from several threads at
// once, each with its own chunk.
class HostChunkReader {
 public:
  explicit HostChunkReader(const TraceStore& store);
  ~HostChunkReader();

  // `first_order`: the number of events in the chunks before this one.
  HostChunkRecords Read(const EventChunk& chunk, std::uint32_t first_order) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace advisor
