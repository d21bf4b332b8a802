#include "engine/script/timeline_codec.h"

#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

namespace advisor {
namespace {

using nlohmann::json;

// Readers of the positional fields of one row, each with its type's range.
std::uint32_t Unsigned32(const JsonField& row, std::size_t column) {
  return static_cast<std::uint32_t>(
      row.Element(column).Unsigned(std::numeric_limits<std::uint32_t>::max()));
}

std::int32_t Int32(const JsonField& row, std::size_t column, std::int32_t low = INT32_MIN) {
  return static_cast<std::int32_t>(
      row.Element(column).Integer(low, std::numeric_limits<std::int32_t>::max()));
}

template <class Enum>
Enum EnumOf(const JsonField& row, std::size_t column, int count) {
  return static_cast<Enum>(row.Element(column).Integer(0, count - 1));
}

// An interval's start and end: from 0, and not ending before it starts.
std::pair<TimeNs, TimeNs> Interval(const JsonField& row, std::size_t start_column) {
  const TimeNs start = row.Element(start_column).Integer(0);
  return {start, row.Element(start_column + 1).Integer(start)};
}

// Calls read(row) for each row of the array events[key]; an absent key has none.
template <class ReadRow>
void ForEachRow(const JsonField& events, const char* key, ReadRow read) {
  const std::optional<JsonField> rows = events.Optional(key);
  if (!rows) return;
  for (std::size_t i = 0, size = rows->Size(); i < size; ++i) read(rows->Element(i));
}

// Interned names: each string once, events refer to it by index.
class Names {
 public:
  int Of(const std::string& name) {
    auto [it, inserted] = index_.emplace(name, static_cast<int>(names_.size()));
    if (inserted) names_.push_back(name);
    return it->second;
  }
  json Take() { return std::move(names_); }

 private:
  std::map<std::string, int> index_;
  json names_ = json::array();
};

// The interned name a row's column refers to.
std::string NameAt(const JsonField& names, const JsonField& row, std::size_t column) {
  const JsonField index = row.Element(column);
  const std::uint64_t i = index.Unsigned();
  if (i >= names.Size()) {
    index.Refuse("an index into events.names (below " + std::to_string(names.Size()) + ")");
  }
  return names.Element(i).String();
}

constexpr int kOpScopes = 4;
constexpr int kMarkerKinds = 4;
constexpr int kMemcpyKinds = 4;
constexpr int kSyncKinds = 6;
constexpr int kPhases = 6;

}  // namespace

std::string EventsToJson(const Timeline& timeline) {
  Names names;
  json ops = json::array();
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpEvent& op = timeline.ops[i];
    const OpCounts& counts = timeline.CountsOf(i);
    const OpSequence& sequence = timeline.SequenceOf(i);
    ops.push_back({names.Of(op.name.str()), static_cast<int>(op.scope), op.thread, sequence.seq_nr,
                   sequence.forward_thread, op.start_ns, op.end_ns, op.depth,
                   timeline.CorrelationOf(i), counts.page_faults, counts.input_elements,
                   counts.broadcast_elements});
  }
  json markers = json::array();
  for (const MarkerEvent& marker : timeline.markers) {
    markers.push_back({names.Of(marker.path.str()), static_cast<int>(marker.kind), marker.thread,
                       marker.time_ns});
  }
  json memory = json::array();
  for (const MemoryEvent& m : timeline.memory) {
    memory.push_back({m.address, m.bytes, m.device, m.thread, m.time_ns});
  }
  json kernels = json::array();
  for (const KernelEvent& k : timeline.kernels) {
    kernels.push_back({names.Of(k.name), k.device, k.stream, k.start_ns, k.end_ns, k.grid[0],
                       k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
                       k.registers_per_thread, k.static_shared_bytes, k.dynamic_shared_bytes,
                       k.correlation_id, k.external_id});
  }
  json memcpys = json::array();
  for (const MemcpyEvent& c : timeline.memcpys) {
    memcpys.push_back({static_cast<int>(c.kind), c.bytes, c.pageable_host, c.device, c.stream,
                       c.start_ns, c.end_ns, c.correlation_id, c.external_id});
  }
  json memsets = json::array();
  for (const MemsetEvent& m : timeline.memsets) {
    memsets.push_back({m.bytes, m.device, m.stream, m.start_ns, m.end_ns, m.correlation_id,
                       m.external_id});
  }
  json syncs = json::array();
  for (const SyncEvent& s : timeline.syncs) {
    syncs.push_back({static_cast<int>(s.kind), s.stream, s.start_ns, s.end_ns, s.correlation_id,
                     s.external_id});
  }
  json api_calls = json::array();
  for (const ApiCallEvent& a : timeline.api_calls) {
    api_calls.push_back({names.Of(a.name), a.driver, a.thread, a.start_ns, a.end_ns,
                         a.correlation_id, a.external_id});
  }
  json probes = json::array();
  for (const ProbeStatus& p : timeline.probes) {
    probes.push_back({p.probe, p.active, p.detail, p.dropped_records});
  }
  const json events = {{"names", names.Take()}, {"ops", std::move(ops)},
                       {"markers", std::move(markers)}, {"memory", std::move(memory)},
                       {"kernels", std::move(kernels)},
                       {"memcpys", std::move(memcpys)}, {"memsets", std::move(memsets)},
                       {"syncs", std::move(syncs)}, {"api_calls", std::move(api_calls)},
                       {"probes", std::move(probes)},
                       {"page_fault_ns", timeline.page_fault_ns}};
  // Invalid UTF-8 in a name (a kernel's, a module path) must not stop the window: replace it.
  return events.dump(-1, ' ', false, json::error_handler_t::replace);
}

json MemoryAtStartToJson(const MemoryAtStart& at_start) {
  return {{"device", at_start.device}, {"allocated_bytes", at_start.bytes}};
}

MemoryAtStart MemoryAtStartFromJson(const JsonField& at_start) {
  const auto device =
      at_start.Required("device").Integer(0, std::numeric_limits<std::int32_t>::max());
  return {static_cast<std::int32_t>(device), at_start.Required("allocated_bytes").Integer(0)};
}

void EventsFromJson(const JsonField& events, Timeline& out) {
  events.ExpectObject();
  const std::optional<JsonField> listed_names = events.Optional("names");
  const json no_names = json::array();
  const JsonField names = listed_names ? *listed_names : JsonField(no_names, events.Source());
  ForEachRow(events, "ops", [&](const JsonField& row) {
    OpEvent op;
    op.name = NameAt(names, row, 0);
    op.scope = EnumOf<OpScope>(row, 1, kOpScopes);
    op.thread = row.Element(2).Unsigned();
    const OpSequence sequence{row.Element(3).Integer(), row.Element(4).Unsigned()};
    std::tie(op.start_ns, op.end_ns) = Interval(row, 5);
    op.depth = static_cast<std::int16_t>(row.Element(7).Integer(0, OpEvent::kMaxDepth));
    const std::uint64_t correlation_id = row.Element(8).Unsigned();
    OpCounts counts;
    counts.page_faults = row.Element(9).Integer(-1);
    if (row.Size() > 11) {
      counts.input_elements = row.Element(10).Integer(-1);
      counts.broadcast_elements = row.Element(11).Integer(-1);
    }
    out.ops.push_back(op);
    out.SetCounts(out.ops.size() - 1, counts);
    out.SetSequence(out.ops.size() - 1, sequence);
    out.SetCorrelation(out.ops.size() - 1, correlation_id);
  });
  ModulePathsByName paths;
  ForEachRow(events, "markers", [&](const JsonField& row) {
    MarkerEvent marker;
    marker.path = paths.Of(NameAt(names, row, 0));
    marker.kind = EnumOf<MarkerKind>(row, 1, kMarkerKinds);
    marker.thread = row.Element(2).Unsigned();
    marker.time_ns = row.Element(3).Integer();
    out.markers.push_back(std::move(marker));
  });
  ForEachRow(events, "memory", [&](const JsonField& row) {
    MemoryEvent m;
    m.address = row.Element(0).Unsigned();
    m.bytes = row.Element(1).Integer();
    m.device = Int32(row, 2, -1);
    m.thread = row.Element(3).Unsigned();
    m.time_ns = row.Element(4).Integer(0);
    out.memory.push_back(m);
  });
  ForEachRow(events, "kernels", [&](const JsonField& row) {
    KernelEvent k;
    k.name = NameAt(names, row, 0);
    k.device = Unsigned32(row, 1);
    k.stream = Unsigned32(row, 2);
    std::tie(k.start_ns, k.end_ns) = Interval(row, 3);
    for (int i = 0; i < 3; ++i) k.grid[i] = Int32(row, 5 + i);
    for (int i = 0; i < 3; ++i) k.block[i] = Int32(row, 8 + i);
    k.registers_per_thread = Int32(row, 11);
    k.static_shared_bytes = Int32(row, 12);
    k.dynamic_shared_bytes = Int32(row, 13);
    k.correlation_id = Unsigned32(row, 14);
    k.external_id = row.Element(15).Unsigned();
    out.kernels.push_back(std::move(k));
  });
  ForEachRow(events, "memcpys", [&](const JsonField& row) {
    MemcpyEvent c;
    c.kind = EnumOf<MemcpyKind>(row, 0, kMemcpyKinds);
    c.bytes = row.Element(1).Unsigned();
    c.pageable_host = row.Element(2).Bool();
    c.device = Unsigned32(row, 3);
    c.stream = Unsigned32(row, 4);
    std::tie(c.start_ns, c.end_ns) = Interval(row, 5);
    c.correlation_id = Unsigned32(row, 7);
    c.external_id = row.Element(8).Unsigned();
    out.memcpys.push_back(c);
  });
  ForEachRow(events, "memsets", [&](const JsonField& row) {
    MemsetEvent m;
    m.bytes = row.Element(0).Unsigned();
    m.device = Unsigned32(row, 1);
    m.stream = Unsigned32(row, 2);
    std::tie(m.start_ns, m.end_ns) = Interval(row, 3);
    m.correlation_id = Unsigned32(row, 5);
    m.external_id = row.Element(6).Unsigned();
    out.memsets.push_back(m);
  });
  ForEachRow(events, "syncs", [&](const JsonField& row) {
    SyncEvent s;
    s.kind = EnumOf<SyncKind>(row, 0, kSyncKinds);
    s.stream = Unsigned32(row, 1);
    std::tie(s.start_ns, s.end_ns) = Interval(row, 2);
    s.correlation_id = Unsigned32(row, 4);
    s.external_id = row.Element(5).Unsigned();
    out.syncs.push_back(s);
  });
  ForEachRow(events, "api_calls", [&](const JsonField& row) {
    ApiCallEvent a;
    a.name = NameAt(names, row, 0);
    a.driver = row.Element(1).Bool();
    a.thread = row.Element(2).Unsigned();
    std::tie(a.start_ns, a.end_ns) = Interval(row, 3);
    a.correlation_id = Unsigned32(row, 5);
    a.external_id = row.Element(6).Unsigned();
    out.api_calls.push_back(std::move(a));
  });
  ForEachRow(events, "probes", [&](const JsonField& row) {
    ProbeStatus p;
    p.probe = row.Element(0).String();
    p.active = row.Element(1).Bool();
    p.detail = row.Element(2).String();
    p.dropped_records = row.Element(3).Unsigned();
    out.probes.push_back(std::move(p));
  });
  // The cost of one page fault: 0 where absent (no op counted its faults). A millisecond per
  // fault is no page fault: refused.
  if (auto page_fault_ns = events.Optional("page_fault_ns")) {
    out.page_fault_ns = page_fault_ns->Number(NumberRange::Within(0, 1e6));
  }
}

json StepsToJson(const std::vector<StepSpan>& steps) {
  json out = json::array();
  for (const StepSpan& step : steps) {
    json phases = json::array();
    for (const PhaseSpan& span : step.phases) {
      phases.push_back({static_cast<int>(span.phase), span.start_ns, span.end_ns});
    }
    out.push_back({step.index, step.start_ns, step.end_ns, std::move(phases)});
  }
  return out;
}

std::vector<StepSpan> StepsFromJson(const JsonField& steps) {
  std::vector<StepSpan> out;
  for (std::size_t i = 0, size = steps.Size(); i < size; ++i) {
    const JsonField row = steps.Element(i);
    StepSpan step;
    step.index = Int32(row, 0);
    std::tie(step.start_ns, step.end_ns) = Interval(row, 1);
    if (!out.empty() && step.start_ns < out.back().end_ns) {
      row.Fail("starts before the previous step ends");
    }
    TimeNs previous_end = step.start_ns;
    const JsonField phases = row.Element(3);
    for (const JsonField& phase : phases.Elements()) {
      PhaseSpan span;
      span.phase = EnumOf<Phase>(phase, 0, kPhases);
      span.start_ns = phase.Element(1).Integer();
      span.end_ns = phase.Element(2).Integer();
      if (span.start_ns < previous_end || span.end_ns < span.start_ns ||
          span.end_ns > step.end_ns) {
        phase.Fail("is out of order or outside its step");
      }
      previous_end = span.end_ns;
      step.phases.push_back(span);
    }
    out.push_back(std::move(step));
  }
  return out;
}

}  // namespace advisor
