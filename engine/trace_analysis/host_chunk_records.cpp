#include "engine/trace_analysis/host_chunk_records.h"

#include <atomic>
#include <set>

#include "engine/analysis/placement.h"
#include "engine/trace_analysis/event_names.h"

namespace advisor {
namespace {

// The ops whose input dtype says what the step computes in.
bool IsComputeOp(const std::string& name) {
  static const std::set<std::string> kCompute = {
      "aten::mm",     "aten::addmm",  "aten::bmm",         "aten::baddbmm",
      "aten::matmul", "aten::linear", "aten::convolution", "aten::_convolution",
      "aten::conv1d", "aten::conv2d", "aten::conv3d"};
  return kCompute.count(name) > 0;
}

ThreadId ThreadOf(std::int64_t tid) { return tid == kAbsent ? 0 : static_cast<ThreadId>(tid); }

// What the tests of event_names.h that Add applies say of each string of a store, worked out once
// a string rather than once an event (a trace's millions of events have a few hundred names).
// Shared by the threads reading chunks: a string's answers are written by whichever thread first
// needs them, and are the same whoever writes them.
class NameTraits {
 public:
  enum : std::uint8_t {
    kKnown = 1,
    kEngineWrapper = 2,  // IsEngineWrapper
    kBackwardNode = 4,   // IsBackwardNode
    kLegacyOp = 8,       // IsLegacyOpName
    kAdvisorOwn = 16,    // IsAdvisorOwn
  };

  explicit NameTraits(const TraceStore& store) : store_(store), traits_(store.strings.size()) {}

  std::uint8_t Of(std::uint32_t id) const {
    std::uint8_t traits = traits_[id].load(std::memory_order_relaxed);
    if (traits == 0) {
      const std::string& name = store_.strings[id];
      traits = kKnown | (IsEngineWrapper(name) ? kEngineWrapper : 0) |
               (IsBackwardNode(name) ? kBackwardNode : 0) | (IsLegacyOpName(name) ? kLegacyOp : 0) |
               (IsAdvisorOwn(name) ? kAdvisorOwn : 0);
      traits_[id].store(traits, std::memory_order_relaxed);
    }
    return traits;
  }

 private:
  const TraceStore& store_;
  mutable std::vector<std::atomic<std::uint8_t>> traits_;  // by string id; 0 until first met
};

// The store's strings as op names, interned once a string rather than once an op (OpName), by
// whichever thread reading chunks first needs one. On one thread names are interned in file order;
// on several, in whatever order the threads meet them: an OpName's id says nothing the reports
// show (they order op names by their text).
class OpNames {
 public:
  explicit OpNames(const TraceStore& store) : store_(store), names_(store.strings.size()) {}

  OpName Of(std::uint32_t id) const {
    // Release and acquire: a thread that finds a name here may read its text (OpName::str), which
    // the thread that interned it stored.
    OpName name = names_[id].load(std::memory_order_acquire);
    if (name.empty()) {
      name = OpName(store_.strings[id]);  // "" stays empty, and costs nothing
      names_[id].store(name, std::memory_order_release);
    }
    return name;
  }

 private:
  const TraceStore& store_;
  mutable std::vector<std::atomic<OpName>> names_;  // by string id; empty until first named
};

// One chunk read into `out`.
class ChunkPass {
 public:
  ChunkPass(const TraceStore& store, const NameTraits& traits, const OpNames& names,
            bool advisor_trace, HostChunkRecords& out)
      : store_(store), traits_(traits), names_(names), advisor_trace_(advisor_trace), out_(out) {}

  void Add(const EventChunk& chunk, std::size_t i, std::uint32_t order) {
    const EventCategory category = chunk.category[i];
    if (category == EventCategory::kFlowForwardBackward) return AddFlow(chunk, i);
    if (chunk.phase[i] != 'X' || chunk.ts_ns[i] == kAbsent) return;
    const std::string& name = store_.strings[chunk.name[i]];
    const std::uint8_t traits = traits_.Of(chunk.name[i]);
    const ThreadId thread = ThreadOf(chunk.tid[i]);
    const TimeNs start = chunk.ts_ns[i];
    const TimeNs end = start + chunk.dur_ns[i];
    if ((traits & NameTraits::kAdvisorOwn) &&
        (category == EventCategory::kCpuOp || category == EventCategory::kUserAnnotation ||
         category == EventCategory::kNone)) {
      out_.advisor_ranges.push_back({name, thread, start, end});
      return;
    }
    switch (category) {
      case EventCategory::kCpuOp:
        if (traits & NameTraits::kEngineWrapper) return;
        out_.AddOp(FieldsOf(chunk, i), names_.Of(chunk.name[i]), name, thread,
                   (traits & NameTraits::kBackwardNode) ||
                           (chunk.forward_thread[i] > 0 && chunk.sequence_number[i] >= 0)
                       ? OpScope::kBackward
                       : OpScope::kForward);
        return;
      case EventCategory::kUserAnnotation:
        if (!AddKnownRange(chunk, i, name, thread, start, end)) {
          out_.modules.push_back({name, "", thread, start, end});
        }
        return;
      case EventCategory::kPythonFunction:
        if (auto component = ModuleOfPythonEvent(name)) {
          out_.modules.push_back({*component, ModuleClass(*component), thread, start, end});
        }
        return;
      case EventCategory::kNone:
        // The legacy exporter: no categories and no arguments, so the name says what the event
        // is, and where the name cannot, its nesting does (HostEventReader places the labels).
        if (traits & NameTraits::kEngineWrapper) return;
        if (traits & NameTraits::kBackwardNode) {
          return out_.AddOp(FieldsOf(chunk, i), names_.Of(chunk.name[i]), name, thread,
                            OpScope::kBackward);
        }
        if (traits & NameTraits::kLegacyOp) {
          std::vector<OperatorAt>& operators = out_.operators[thread];
          // A legacy trace's events are nearly all operators: room for the chunk's at the first.
          if (operators.empty()) operators.reserve(chunk.size());
          operators.push_back({static_cast<std::uint32_t>(out_.ops.size()), order});
          return out_.AddOp(FieldsOf(chunk, i), names_.Of(chunk.name[i]), name, thread,
                            OpScope::kForward);
        }
        if (!AddKnownRange(chunk, i, name, thread, start, end)) {
          out_.labels[thread].push_back({FieldsOf(chunk, i), order});
        }
        return;
      case EventCategory::kOther:
        // advisor's trace.json writes no other category than Kineto's and its own ("advisor").
        if (!advisor_trace_) return;
        if (PhaseNamed(name)) {
          out_.advisor_phases.push_back({name, thread, start, end});
        } else if (const std::optional<std::string> label = AdvisorWindowLabel(name)) {
          out_.advisor_windows.push_back({*label, thread, start, end});
        } else {
          out_.advisor_backward_spans.push_back({name, thread, start, end});
        }
        return;
      default:
        return;  // GPU records and runtime calls are read with the GPU records
    }
  }

 private:
  // The ranges torch itself opens, by name; false for any other name (a label).
  bool AddKnownRange(const EventChunk& chunk, std::size_t i, const std::string& name,
                     ThreadId thread, TimeNs start, TimeNs end) {
    if (IsProfilerStep(name)) {
      out_.profiler_steps.push_back({name, thread, start, end});
      return true;
    }
    const bool optimizer = IsOptimizerRange(name);
    const bool data_loader = IsDataLoaderNext(name);
    if (optimizer || data_loader || IsCommunication(name)) {
      if (IsOptimizerStep(name)) out_.optimizer_steps.push_back({name, thread, start, end});
      if (data_loader) out_.data_loader.push_back({name, thread, start, end});
      out_.AddOp(FieldsOf(chunk, i), names_.Of(chunk.name[i]), name, thread, OpScope::kUser);
      return true;
    }
    return IsParallelWrapperForward(name);
  }

  void AddFlow(const EventChunk& chunk, std::size_t i) {
    if (chunk.correlation[i] == kAbsent || chunk.ts_ns[i] == kAbsent) return;
    if (chunk.phase[i] != 's' && chunk.phase[i] != 'f') return;
    out_.flow_ends.push_back(
        {chunk.correlation[i], chunk.phase[i] == 's', ThreadOf(chunk.tid[i]), chunk.ts_ns[i]});
  }

  EventFields FieldsOf(const EventChunk& chunk, std::size_t i) const {
    return {chunk.name[i],
            chunk.ts_ns[i],
            chunk.ts_ns[i] + chunk.dur_ns[i],
            chunk.sequence_number[i],
            chunk.forward_thread[i],
            chunk.input_type[i],
            CollectiveOf(store_, chunk, i)};
  }

  const TraceStore& store_;
  const NameTraits& traits_;
  const OpNames& names_;
  const bool advisor_trace_;
  HostChunkRecords& out_;
};

}  // namespace

void HostChunkRecords::AddOp(const EventFields& event, OpName name, const std::string& text,
                             ThreadId thread, OpScope scope) {
  OpEvent op;
  op.name = name;
  op.scope = scope;
  op.thread = thread;
  op.start_ns = event.start;
  op.end_ns = event.end;
  if (event.collective) collective_of_op.emplace_back(ops.size(), *event.collective);
  if (event.sequence_number >= 0) {
    // The ops of a chunk that numbers its ops are mostly numbered: room for all at the first.
    if (op_sequences.empty()) op_sequences.reserve(ops.capacity());
    op_sequences.resize(ops.size());
    op_sequences.push_back({event.sequence_number, 0});
    has_sequence_numbers = true;
    if (scope == OpScope::kBackward && event.forward_thread != kAbsent) {
      pending.push_back({ops.size(), event.forward_thread});
    }
  }
  if (scope == OpScope::kBackward) backward_nodes.push_back(ops.size());
  if (event.input_type != 0 && IsComputeOp(text)) {
    compute_time_by_input_type[event.input_type] += op.end_ns - op.start_ns;
  }
  if (scope == OpScope::kForward && event.sequence_number >= 0) forward_threads.insert(thread);
  ops.push_back(op);
}

class HostChunkReader::Impl {
 public:
  explicit Impl(const TraceStore& store)
      : store_(store),
        advisor_trace_(store.metadata.generator == "advisor"),
        traits_(store),
        names_(store) {}

  HostChunkRecords Read(const EventChunk& chunk, std::uint32_t first_order) const {
    HostChunkRecords records;
    // Most events of a trace are ops: room for the chunk's at once.
    records.ops.reserve(chunk.size());
    ChunkPass pass(store_, traits_, names_, advisor_trace_, records);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      pass.Add(chunk, i, first_order + static_cast<std::uint32_t>(i));
    }
    return records;
  }

 private:
  const TraceStore& store_;
  const bool advisor_trace_;  // the store is advisor's own trace.json (TraceMetadata::generator)
  const NameTraits traits_;
  const OpNames names_;
};

HostChunkReader::HostChunkReader(const TraceStore& store) : impl_(std::make_unique<Impl>(store)) {}

HostChunkReader::~HostChunkReader() = default;

HostChunkRecords HostChunkReader::Read(const EventChunk& chunk, std::uint32_t first_order) const {
  return impl_->Read(chunk, first_order);
}

}  // namespace advisor
