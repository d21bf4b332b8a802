#include "engine/trace_analysis/host_events.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

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

 public:
  explicit Impl(const TraceStore& store) : store_(store) {
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
    const ThreadId thread = ThreadOf(chunk.tid[i]);
    const TimeNs start = chunk.ts_ns[i];
    const TimeNs end = start + chunk.dur_ns[i];
    switch (category) {
      case EventCategory::kCpuOp:
        if (IsEngineWrapper(name)) return;
        AddOp(FieldsOf(chunk, i), name, thread,
              IsBackwardNode(name) || (chunk.forward_thread[i] > 0 && chunk.sequence_number[i] >= 0)
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
        if (IsEngineWrapper(name)) return;
        if (IsBackwardNode(name)) {
          return AddOp(FieldsOf(chunk, i), name, thread, OpScope::kBackward);
        }
        if (IsLegacyOpName(name)) {
          operators_[thread].push_back({static_cast<std::uint32_t>(host_.ops.size()), order_});
          return AddOp(FieldsOf(chunk, i), name, thread, OpScope::kForward);
        }
        if (!AddKnownRange(chunk, i, name, thread, start, end)) {
          labels_[thread].push_back({FieldsOf(chunk, i), order_});
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
      // An operator (label -1) or labels[label], in the order they are placed in.
      struct Item {
        TimeNs start = 0;
        TimeNs end = 0;
        std::uint32_t order = 0;  // in the file
        std::int32_t label = -1;
      };
      const std::vector<OperatorAt>& operators = operators_[thread];
      std::vector<Item> sorted;
      sorted.reserve(operators.size() + labels.size());
      for (const OperatorAt& op : operators) {
        sorted.push_back({host_.ops[op.op].start_ns, host_.ops[op.op].end_ns, op.order, -1});
      }
      for (std::size_t i = 0; i < labels.size(); ++i) {
        const EventFields& label = labels[i].fields;
        sorted.push_back({label.start, label.end, labels[i].order, static_cast<std::int32_t>(i)});
      }
      // Outer before inner; of two events with one interval, the one written first is outer.
      const auto outer_first = [](const Item& a, const Item& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        return a.order < b.order;
      };
      // The operators, nearly all of the events, mostly come in this order already: they are
      // checked, the few labels sorted, and the two merged.
      const auto first_label = sorted.begin() + static_cast<std::ptrdiff_t>(operators.size());
      if (!std::is_sorted(sorted.begin(), first_label, outer_first)) {
        std::sort(sorted.begin(), first_label, outer_first);
      }
      std::sort(first_label, sorted.end(), outer_first);
      std::inplace_merge(sorted.begin(), first_label, sorted.end(), outer_first);
      std::vector<TimeNs> open;  // ends of the operators enclosing the current event
      for (const Item& item : sorted) {
        while (!open.empty() && open.back() + kExporterPrecisionNs < item.start) open.pop_back();
        if (item.label < 0) {
          open.push_back(item.end);
          continue;
        }
        const bool in_operator = std::any_of(open.begin(), open.end(), [&](TimeNs end) {
          return end + kExporterPrecisionNs >= item.end;
        });
        const EventFields& label = labels[item.label].fields;
        const std::string& name = store_.strings[label.name];
        if (in_operator) {
          AddOp(label, name, thread, OpScope::kForward);
        } else if (!IsParallelWrapperForward(name)) {
          host_.modules.push_back({name, "", thread, label.start, label.end});
        }
      }
    }
  }

  void AddOp(const EventFields& event, const std::string& name, ThreadId thread, OpScope scope) {
    OpEvent op;
    op.name = name;
    op.scope = scope;
    op.thread = thread;
    op.start_ns = event.start;
    op.end_ns = event.end;
    op.correlation_id = host_.ops.size() + 1;
    if (event.collective) host_.collective_of_op.emplace(op.correlation_id, *event.collective);
    if (event.sequence_number >= 0) {
      op.seq_nr = event.sequence_number;
      host_.has_sequence_numbers = true;
      if (scope == OpScope::kBackward && event.forward_thread != kAbsent) {
        pending_.push_back({host_.ops.size(), event.forward_thread});
        recorded_thread_.emplace(host_.ops.size(), event.forward_thread);
      }
    }
    if (scope == OpScope::kBackward) node_at_[{thread, op.start_ns}] = host_.ops.size();
    if (event.input_type != 0 && IsComputeOp(name)) {
      time_by_dtype_[store_.strings[event.input_type]] += op.end_ns - op.start_ns;
    }
    if (scope == OpScope::kForward && op.seq_nr >= 0) forward_threads_.insert(thread);
    host_.ops.push_back(std::move(op));
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
    std::map<std::int64_t, ThreadId> thread_of;
    for (const auto& [id, flow] : flows_) {
      if (!flow.start || !flow.finish) continue;
      auto node = node_at_.find(*flow.finish);
      if (node == node_at_.end()) continue;
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
      host_.ops[pending.op].forward_thread = it->second;
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
  HostEvents host_;
  std::vector<PendingNode> pending_;
  std::unordered_map<std::size_t, std::int64_t> recorded_thread_;  // op -> pending's thread number
  std::map<std::pair<ThreadId, TimeNs>, std::size_t> node_at_;  // backward node by (thread, start)
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
