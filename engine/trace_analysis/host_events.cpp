#include "engine/trace_analysis/host_events.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "engine/analysis/placement.h"
#include "engine/trace_analysis/event_names.h"

namespace advisor {
namespace {

// A backward node as read, before its forward thread is known.
struct PendingNode {
  std::size_t op = 0;
  std::int64_t recorded_forward_thread = 0;  // RecordFunction's thread number
};

// The ops whose input dtype says what the step computes in.
bool IsComputeOp(const std::string& name) {
  static const std::set<std::string> kCompute = {
      "aten::mm",     "aten::addmm",  "aten::bmm",         "aten::baddbmm",
      "aten::matmul", "aten::linear", "aten::convolution", "aten::_convolution",
      "aten::conv1d", "aten::conv2d", "aten::conv3d"};
  return kCompute.count(name) > 0;
}

// record_shapes writes C++ type names: "float", "c10::BFloat16".
std::string DtypeName(const std::string& type) {
  static const std::map<std::string, std::string> kNames = {
      {"float", "float32"},
      {"double", "float64"},
      {"c10::Half", "float16"},
      {"c10::BFloat16", "bfloat16"},
      {"c10::Float8_e4m3fn", "float8_e4m3fn"}};
  auto it = kNames.find(type);
  return it == kNames.end() ? type : it->second;
}

}  // namespace

class HostEventReader::Impl {
 private:
  // What an op is made of, copied out of its event: a label is placed once the whole trace is
  // read, and its chunk may be gone by then.
  struct EventFields {
    std::uint32_t name = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    std::int64_t sequence_number = kAbsent;
    std::int64_t forward_thread = kAbsent;
    std::uint32_t input_type = 0;
    std::optional<CollectiveDescription> collective;
  };

  // What an event's name says of it (event_names.h).
  struct NameTraits {
    bool known = false;
    bool engine_wrapper = false;  // IsEngineWrapper
    bool backward_node = false;   // IsBackwardNode
    bool legacy_op = false;       // IsLegacyOpName
    bool advisor_own = false;     // IsAdvisorOwn
  };

 public:
  explicit Impl(const TraceStore& store)
      : store_(store),
        advisor_trace_(store.metadata.generator == "advisor"),
        op_names_(store.strings.size()),
        name_traits_(store.strings.size()) {
    // Most events of a trace are ops: room for every one that may be is made at once (pages
    // never written are never resident), rather than growing to it by copying millions of ops.
    std::size_t may_be_ops = 0;
    for (const EventChunk& chunk : store_.chunks) {
      for (std::size_t i = 0; i < chunk.size(); ++i) may_be_ops += MayBeOp(chunk, i);
    }
    host_.ops.reserve(may_be_ops);
  }

  void Add(const EventChunk& chunk) {
    for (std::size_t i = 0; i < chunk.size(); ++i, ++order_) Add(chunk, i);
  }

  HostEvents Finish() {
    PlaceUncategorisedLabels();
    LinkBackwardThreads();
    TimeNs most = 0;
    for (const auto& [type, time] : time_by_dtype_) {
      if (time > most) {
        most = time;
        host_.compute_dtype = DtypeName(type);
      }
    }
    return std::move(host_);
  }

 private:
  void Add(const EventChunk& chunk, std::size_t i) {
    const EventCategory category = chunk.category[i];
    if (category == EventCategory::kFlowForwardBackward) return AddFlow(chunk, i);
    if (chunk.phase[i] != 'X' || chunk.ts_ns[i] == kAbsent) return;
    const std::string& name = store_.strings[chunk.name[i]];
    const NameTraits& traits = TraitsOf(chunk.name[i]);
    const ThreadId thread = ThreadOf(chunk.tid[i]);
    const TimeNs start = chunk.ts_ns[i];
    const TimeNs end = start + chunk.dur_ns[i];
    if (traits.advisor_own &&
        (category == EventCategory::kCpuOp || category == EventCategory::kUserAnnotation ||
         category == EventCategory::kNone)) {
      host_.advisor_ranges.push_back({name, thread, start, end});
      return;
    }
    switch (category) {
      case EventCategory::kCpuOp:
        if (traits.engine_wrapper) return;
        AddOp(FieldsOf(chunk, i), name, thread,
              traits.backward_node || (chunk.forward_thread[i] > 0 && chunk.sequence_number[i] >= 0)
                  ? OpScope::kBackward
                  : OpScope::kForward);
        return;
      case EventCategory::kUserAnnotation:
        return AddRange(chunk, i, name, thread, start, end);
      case EventCategory::kPythonFunction:
        if (auto component = ModuleOfPythonEvent(name)) {
          host_.modules.push_back({*component, ModuleClass(*component), thread, start, end});
        }
        return;
      case EventCategory::kNone:
        // The legacy exporter: no categories and no arguments, so the name says what the event
        // is, and where the name cannot, its nesting does (PlaceUncategorisedLabels).
        if (traits.engine_wrapper) return;
        if (traits.backward_node) {
          return AddOp(FieldsOf(chunk, i), name, thread, OpScope::kBackward);
        }
        if (traits.legacy_op) {
          operators_[thread].push_back({static_cast<std::uint32_t>(host_.ops.size()), order_});
          return AddOp(FieldsOf(chunk, i), name, thread, OpScope::kForward);
        }
        if (!AddKnownRange(chunk, i, name, thread, start, end)) {
          labels_[thread].push_back({FieldsOf(chunk, i), order_});
        }
        return;
      case EventCategory::kOther:
        // advisor's trace.json writes no other category than Kineto's and its own ("advisor").
        if (!advisor_trace_) return;
        if (PhaseNamed(name)) {
          host_.advisor_phases.push_back({name, thread, start, end});
        } else if (const std::optional<std::string> label = AdvisorWindowLabel(name)) {
          host_.advisor_windows.push_back({*label, thread, start, end});
        } else {
          host_.advisor_backward_spans.push_back({name, thread, start, end});
        }
        return;
      default:
        return;  // GPU records and runtime calls are read with the GPU records
    }
  }

  // A record_function range: a step, torch.optim's or the DataLoader's range, a collective's
  // host side, or otherwise a label of the code it brackets, taken as a module.
  void AddRange(const EventChunk& chunk, std::size_t i, const std::string& name, ThreadId thread,
                TimeNs start, TimeNs end) {
    if (!AddKnownRange(chunk, i, name, thread, start, end)) {
      host_.modules.push_back({name, "", thread, start, end});
    }
  }

  // The ranges torch itself opens, by name; false for any other name (a label).
  bool AddKnownRange(const EventChunk& chunk, std::size_t i, const std::string& name,
                     ThreadId thread, TimeNs start, TimeNs end) {
    if (IsProfilerStep(name)) {
      host_.profiler_steps.push_back({name, thread, start, end});
      return true;
    }
    const bool optimizer = IsOptimizerRange(name);
    const bool data_loader = IsDataLoaderNext(name);
    if (optimizer || data_loader || IsCommunication(name)) {
      if (IsOptimizerStep(name)) host_.optimizer_steps.push_back({name, thread, start, end});
      if (data_loader) host_.data_loader.push_back({name, thread, start, end});
      AddOp(FieldsOf(chunk, i), name, thread, OpScope::kUser);
      return true;
    }
    return IsParallelWrapperForward(name);
  }

  // In a trace without categories, an unknown name may be a record_function label or an op that
  // C++ records under a bare name (torch 1.13's "detach_", recorded inside "aten::detach_").
  // record_function is called from Python, never from inside an operator: an event nested in an
  // operator on its thread is an op, any other a label, taken as a module. Nesting is judged to
  // the exporter's precision, whole microseconds: a zero-length "detach_" was written 1 us after
  // its zero-length "aten::detach_" ended.
  void PlaceUncategorisedLabels() {
    constexpr TimeNs kExporterPrecisionNs = 1000;
    for (auto& [thread, labels] : labels_) {
      std::vector<OperatorAt>& operators = operators_[thread];
      // Outer before inner; of two events with one interval, the one written first is outer.
      const auto outer_first = [](TimeNs start_a, TimeNs end_a, std::uint32_t order_a,
                                  TimeNs start_b, TimeNs end_b, std::uint32_t order_b) {
        if (start_a != start_b) return start_a < start_b;
        if (end_a != end_b) return end_a > end_b;
        return order_a < order_b;
      };
      const auto operator_first = [&](const OperatorAt& a, const OperatorAt& b) {
        const OpEvent& x = host_.ops[a.op];
        const OpEvent& y = host_.ops[b.op];
        return outer_first(x.start_ns, x.end_ns, a.order, y.start_ns, y.end_ns, b.order);
      };
      const auto label_first = [&](const Label& label, const OperatorAt& op) {
        const OpEvent& x = host_.ops[op.op];
        return outer_first(label.fields.start, label.fields.end, label.order, x.start_ns, x.end_ns,
                           op.order);
      };
      // The operators, nearly all of the events, mostly come in this order already: they are
      // checked, the few labels sorted, and the two walked in step, each label after the
      // operators that come before it.
      if (!std::is_sorted(operators.begin(), operators.end(), operator_first)) {
        std::sort(operators.begin(), operators.end(), operator_first);
      }
      std::sort(labels.begin(), labels.end(), [&](const Label& a, const Label& b) {
        return outer_first(a.fields.start, a.fields.end, a.order, b.fields.start, b.fields.end,
                           b.order);
      });
      std::vector<TimeNs> open;  // ends of the operators enclosing the current event
      const auto close_before = [&open](TimeNs start) {
        while (!open.empty() && open.back() + kExporterPrecisionNs < start) open.pop_back();
      };
      std::size_t next_operator = 0;
      for (const Label& label : labels) {
        for (; next_operator < operators.size() && !label_first(label, operators[next_operator]);
             ++next_operator) {
          const OpEvent& op = host_.ops[operators[next_operator].op];
          close_before(op.start_ns);
          open.push_back(op.end_ns);
        }
        close_before(label.fields.start);
        const bool in_operator = std::any_of(open.begin(), open.end(), [&](TimeNs end) {
          return end + kExporterPrecisionNs >= label.fields.end;
        });
        const std::string& name = store_.strings[label.fields.name];
        if (in_operator) {
          AddOp(label.fields, name, thread, OpScope::kForward);
        } else if (!IsParallelWrapperForward(name)) {
          host_.modules.push_back({name, "", thread, label.fields.start, label.fields.end});
        }
      }
    }
  }

  void AddOp(const EventFields& event, const std::string& name, ThreadId thread, OpScope scope) {
    OpEvent op;
    op.name = OpNameOf(event.name);
    op.scope = scope;
    op.thread = thread;
    op.start_ns = event.start;
    op.end_ns = event.end;
    if (event.collective) host_.collective_of_op.emplace(host_.ops.size() + 1, *event.collective);
    if (event.sequence_number >= 0) {
      NumberNextOp(event.sequence_number);
      host_.has_sequence_numbers = true;
      if (scope == OpScope::kBackward && event.forward_thread != kAbsent) {
        pending_.push_back({host_.ops.size(), event.forward_thread});
        recorded_thread_.emplace(host_.ops.size(), event.forward_thread);
      }
    }
    if (scope == OpScope::kBackward) backward_nodes_.push_back(host_.ops.size());
    if (event.input_type != 0 && IsComputeOp(name)) {
      time_by_dtype_[store_.strings[event.input_type]] += op.end_ns - op.start_ns;
    }
    if (scope == OpScope::kForward && event.sequence_number >= 0) forward_threads_.insert(thread);
    host_.ops.push_back(op);
  }

  // The op about to be added has sequence number `seq_nr`; its forward thread is linked later.
  void NumberNextOp(std::int64_t seq_nr) {
    std::vector<OpSequence>& sequences = host_.op_sequences;
    // A trace that numbers its ops numbers most of them: room for every op at the first.
    if (sequences.empty()) sequences.reserve(host_.ops.capacity());
    sequences.resize(host_.ops.size());
    sequences.push_back({seq_nr, 0});
  }

  // "s" at the forward op, "f" at its backward node, with one id.
  void AddFlow(const EventChunk& chunk, std::size_t i) {
    if (chunk.correlation[i] == kAbsent || chunk.ts_ns[i] == kAbsent) return;
    Flow& flow = flows_[chunk.correlation[i]];
    const std::pair<ThreadId, TimeNs> at{ThreadOf(chunk.tid[i]), chunk.ts_ns[i]};
    if (chunk.phase[i] == 's') flow.start = at;
    if (chunk.phase[i] == 'f') flow.finish = at;
  }

  // Backward nodes name the forward thread by RecordFunction's number for it ("Fwd thread id":
  // 1), not by the thread id the trace uses. Each forward-backward flow shows both for one node;
  // a trace without flows whose forward ops all ran on one thread names it too.
  void LinkBackwardThreads() {
    std::map<std::pair<ThreadId, TimeNs>, std::size_t> node_at;  // by (thread, start)
    if (!flows_.empty()) {
      for (std::size_t node : backward_nodes_) {
        node_at[{host_.ops[node].thread, host_.ops[node].start_ns}] = node;
      }
    }
    std::map<std::int64_t, ThreadId> thread_of;
    for (const auto& [id, flow] : flows_) {
      if (!flow.start || !flow.finish) continue;
      auto node = node_at.find(*flow.finish);
      if (node == node_at.end()) continue;
      auto recorded = recorded_thread_.find(node->second);
      if (recorded != recorded_thread_.end())
        thread_of.emplace(recorded->second, flow.start->first);
    }
    if (thread_of.empty() && forward_threads_.size() == 1) {
      for (const PendingNode& pending : pending_) {
        thread_of.emplace(pending.recorded_forward_thread, *forward_threads_.begin());
      }
    }
    std::size_t linked = 0;
    for (const PendingNode& pending : pending_) {
      auto it = thread_of.find(pending.recorded_forward_thread);
      if (it == thread_of.end()) continue;
      host_.op_sequences[pending.op].forward_thread = it->second;
      ++linked;
    }
    host_.backward_linked = linked > 0;
    if (!host_.has_sequence_numbers) {
      host_.notes.push_back(
          "the trace has no sequence numbers (LibTorch without Kineto writes none): backward ops "
          "are not linked to their forward ops, so they count outside every module");
    } else if (linked < pending_.size()) {
      host_.notes.push_back(std::to_string(pending_.size() - linked) + " of " +
                            std::to_string(pending_.size()) +
                            " backward nodes name a forward thread the trace does not show; "
                            "they count outside every module");
    }
  }

  // Add's ops come from complete events of these categories.
  static bool MayBeOp(const EventChunk& chunk, std::size_t i) {
    const EventCategory category = chunk.category[i];
    return chunk.phase[i] == 'X' &&
           (category == EventCategory::kCpuOp || category == EventCategory::kUserAnnotation ||
            category == EventCategory::kNone);
  }

  // What the store's string `id` says as an event's name, worked out once for the trace, not
  // once an event: a trace's millions of events have a few hundred names.
  const NameTraits& TraitsOf(std::uint32_t id) {
    NameTraits& traits = name_traits_[id];
    if (!traits.known) {
      const std::string& name = store_.strings[id];
      traits = {true, IsEngineWrapper(name), IsBackwardNode(name), IsLegacyOpName(name),
                IsAdvisorOwn(name)};
    }
    return traits;
  }

  // The store's string `id` as an op's name: interned once for the trace, not once an op.
  OpName OpNameOf(std::uint32_t id) {
    OpName& name = op_names_[id];
    if (name.empty()) name = OpName(store_.strings[id]);  // "" stays empty, and costs nothing
    return name;
  }

  static ThreadId ThreadOf(std::int64_t tid) {
    return tid == kAbsent ? 0 : static_cast<ThreadId>(tid);
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

  // An uncategorised label to place.
  struct Label {
    EventFields fields;
    std::uint32_t order = 0;  // in the file
  };

  // An uncategorised operator: host_.ops[op], the order-th event of the file. Held by index, not
  // by copy: a legacy trace's events are nearly all operators.
  struct OperatorAt {
    std::uint32_t op = 0;
    std::uint32_t order = 0;
  };

  struct Flow {
    std::optional<std::pair<ThreadId, TimeNs>> start;
    std::optional<std::pair<ThreadId, TimeNs>> finish;
  };

  const TraceStore& store_;
  const bool advisor_trace_;  // the store is advisor's own trace.json (TraceMetadata::generator)
  std::vector<OpName> op_names_;         // by the store's string id; empty until first named
  std::vector<NameTraits> name_traits_;  // by the store's string id; unknown until first met
  HostEvents host_;
  std::vector<PendingNode> pending_;
  std::unordered_map<std::size_t, std::int64_t> recorded_thread_;  // op -> pending's thread number
  // The backward nodes, found by (thread, start) from the flows that end at them, where there are
  // flows: a trace without (the legacy exporter's) holds no table of its nodes.
  std::vector<std::size_t> backward_nodes_;
  std::map<std::int64_t, Flow> flows_;
  std::set<ThreadId> forward_threads_;
  std::map<std::string, TimeNs> time_by_dtype_;  // compute ops' time by their first input's type
  // The event being added, counted through the file (ReadOptions::max_events keeps it in 32 bits).
  std::uint32_t order_ = 0;
  std::map<ThreadId, std::vector<OperatorAt>> operators_;  // uncategorised operators by thread
  std::map<ThreadId, std::vector<Label>> labels_;          // uncategorised labels by thread
};

HostEventReader::HostEventReader(const TraceStore& store) : impl_(std::make_unique<Impl>(store)) {}

HostEventReader::~HostEventReader() = default;

void HostEventReader::Add(const EventChunk& chunk) { impl_->Add(chunk); }

HostEvents HostEventReader::Finish() { return impl_->Finish(); }

HostEvents ReadHostEvents(const TraceStore& store) {
  HostEventReader reader(store);
  for (const EventChunk& chunk : store.chunks) reader.Add(chunk);
  return reader.Finish();
}

std::optional<CollectiveDescription> CollectiveOf(const TraceStore& store, const EventChunk& chunk,
                                                  std::size_t i) {
  const std::uint32_t extra = chunk.extra[i];
  if (extra == EventChunk::kNoExtra || !chunk.extras[extra].has_collective) return std::nullopt;
  const CollectiveArgs& args = chunk.extras[extra].collective;
  return CollectiveDescription{store.strings[args.name], store.strings[args.process_group],
                               args.seq == kAbsent ? -1 : args.seq};
}

}  // namespace advisor
