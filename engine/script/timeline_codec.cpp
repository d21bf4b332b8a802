#include "engine/script/timeline_codec.h"

#include <limits>
#include <map>

namespace advisor {
namespace {

using nlohmann::json;

// Field readers for untrusted input: each names what it expected.
const json& At(const json& array, std::size_t index, const char* what) {
  if (!array.is_array() || index >= array.size()) {
    throw ProbeMessageError(std::string(what) + ": expected an array of at least " +
                            std::to_string(index + 1) + " elements");
  }
  return array[index];
}

std::int64_t Integer(const json& value, const char* what) {
  if (!value.is_number_integer()) throw ProbeMessageError(std::string(what) + ": not an integer");
  return value.get<std::int64_t>();
}

std::uint64_t Unsigned(const json& value, const char* what) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  const std::int64_t number = Integer(value, what);
  if (number < 0) throw ProbeMessageError(std::string(what) + ": negative");
  return static_cast<std::uint64_t>(number);
}

std::uint32_t Unsigned32(const json& value, const char* what) {
  const std::uint64_t number = Unsigned(value, what);
  if (number > std::numeric_limits<std::uint32_t>::max()) {
    throw ProbeMessageError(std::string(what) + ": out of range");
  }
  return static_cast<std::uint32_t>(number);
}

std::int32_t Int32(const json& value, const char* what) {
  const std::int64_t number = Integer(value, what);
  if (number < std::numeric_limits<std::int32_t>::min() ||
      number > std::numeric_limits<std::int32_t>::max()) {
    throw ProbeMessageError(std::string(what) + ": out of range");
  }
  return static_cast<std::int32_t>(number);
}

const std::string& String(const json& value, const char* what) {
  if (!value.is_string()) throw ProbeMessageError(std::string(what) + ": not a string");
  return value.get_ref<const std::string&>();
}

bool Boolean(const json& value, const char* what) {
  if (!value.is_boolean()) throw ProbeMessageError(std::string(what) + ": not a boolean");
  return value.get<bool>();
}

template <class Enum>
Enum EnumOf(const json& value, int count, const char* what) {
  const std::int64_t number = Integer(value, what);
  if (number < 0 || number >= count) throw ProbeMessageError(std::string(what) + ": out of range");
  return static_cast<Enum>(number);
}

void Interval(TimeNs start, TimeNs end, const char* what) {
  if (start < 0 || end < start) throw ProbeMessageError(std::string(what) + ": ends before it starts");
}

const json& ArrayField(const json& object, const char* key) {
  static const json empty = json::array();
  auto it = object.find(key);
  if (it == object.end()) return empty;
  if (!it->is_array()) throw ProbeMessageError(std::string("events.") + key + ": not an array");
  return *it;
}

// The cost of one page fault: 0 where absent (no op counted its faults). A millisecond per fault
// is no page fault: refused.
double PageFaultNs(const json& events) {
  auto it = events.find("page_fault_ns");
  if (it == events.end()) return 0;
  if (!it->is_number()) throw ProbeMessageError("events.page_fault_ns: not a number");
  const double ns = it->get<double>();
  if (!(ns >= 0 && ns <= 1e6)) throw ProbeMessageError("events.page_fault_ns: out of range");
  return ns;
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

const std::string& NameAt(const json& names, const json& index, const char* what) {
  const std::uint64_t i = Unsigned(index, what);
  if (i >= names.size()) throw ProbeMessageError(std::string(what) + ": no such name");
  return String(names[i], "events.names");
}

constexpr int kOpScopes = 4;
constexpr int kMarkerKinds = 4;
constexpr int kMemcpyKinds = 4;
constexpr int kSyncKinds = 6;
constexpr int kPhases = 5;

}  // namespace

std::string EventsToJson(const Timeline& timeline) {
  Names names;
  json ops = json::array();
  for (const OpEvent& op : timeline.ops) {
    ops.push_back({names.Of(op.name), static_cast<int>(op.scope), op.thread, op.seq_nr,
                   op.forward_thread, op.start_ns, op.end_ns, op.depth, op.correlation_id,
                   op.page_faults});
  }
  json markers = json::array();
  for (const MarkerEvent& marker : timeline.markers) {
    markers.push_back({names.Of(marker.path), static_cast<int>(marker.kind), marker.thread,
                       marker.time_ns});
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
                       {"markers", std::move(markers)}, {"kernels", std::move(kernels)},
                       {"memcpys", std::move(memcpys)}, {"memsets", std::move(memsets)},
                       {"syncs", std::move(syncs)}, {"api_calls", std::move(api_calls)},
                       {"probes", std::move(probes)},
                       {"page_fault_ns", timeline.page_fault_ns}};
  // Invalid UTF-8 in a name (a kernel's, a module path) must not stop the window: replace it.
  return events.dump(-1, ' ', false, json::error_handler_t::replace);
}

void EventsFromJson(const json& events, Timeline& out) {
  if (!events.is_object()) throw ProbeMessageError("events: not an object");
  const json& names = ArrayField(events, "names");
  for (const json& row : ArrayField(events, "ops")) {
    OpEvent op;
    op.name = NameAt(names, At(row, 0, "events.ops"), "events.ops name");
    op.scope = EnumOf<OpScope>(At(row, 1, "events.ops"), kOpScopes, "events.ops scope");
    op.thread = Unsigned(At(row, 2, "events.ops"), "events.ops thread");
    op.seq_nr = Integer(At(row, 3, "events.ops"), "events.ops sequence number");
    op.forward_thread = Unsigned(At(row, 4, "events.ops"), "events.ops forward thread");
    op.start_ns = Integer(At(row, 5, "events.ops"), "events.ops start");
    op.end_ns = Integer(At(row, 6, "events.ops"), "events.ops end");
    Interval(op.start_ns, op.end_ns, "events.ops");
    op.depth = Int32(At(row, 7, "events.ops"), "events.ops depth");
    if (op.depth < 0) throw ProbeMessageError("events.ops depth: negative");
    op.correlation_id = Unsigned(At(row, 8, "events.ops"), "events.ops correlation");
    op.page_faults = Integer(At(row, 9, "events.ops"), "events.ops page faults");
    if (op.page_faults < -1) throw ProbeMessageError("events.ops page faults: below -1");
    out.ops.push_back(std::move(op));
  }
  for (const json& row : ArrayField(events, "markers")) {
    MarkerEvent marker;
    marker.path = NameAt(names, At(row, 0, "events.markers"), "events.markers path");
    marker.kind = EnumOf<MarkerKind>(At(row, 1, "events.markers"), kMarkerKinds,
                                     "events.markers kind");
    marker.thread = Unsigned(At(row, 2, "events.markers"), "events.markers thread");
    marker.time_ns = Integer(At(row, 3, "events.markers"), "events.markers time");
    out.markers.push_back(std::move(marker));
  }
  for (const json& row : ArrayField(events, "kernels")) {
    const char* what = "events.kernels";
    KernelEvent k;
    k.name = NameAt(names, At(row, 0, what), what);
    k.device = Unsigned32(At(row, 1, what), what);
    k.stream = Unsigned32(At(row, 2, what), what);
    k.start_ns = Integer(At(row, 3, what), what);
    k.end_ns = Integer(At(row, 4, what), what);
    Interval(k.start_ns, k.end_ns, what);
    for (int i = 0; i < 3; ++i) k.grid[i] = Int32(At(row, 5 + i, what), what);
    for (int i = 0; i < 3; ++i) k.block[i] = Int32(At(row, 8 + i, what), what);
    k.registers_per_thread = Int32(At(row, 11, what), what);
    k.static_shared_bytes = Int32(At(row, 12, what), what);
    k.dynamic_shared_bytes = Int32(At(row, 13, what), what);
    k.correlation_id = Unsigned32(At(row, 14, what), what);
    k.external_id = Unsigned(At(row, 15, what), what);
    out.kernels.push_back(std::move(k));
  }
  for (const json& row : ArrayField(events, "memcpys")) {
    const char* what = "events.memcpys";
    MemcpyEvent c;
    c.kind = EnumOf<MemcpyKind>(At(row, 0, what), kMemcpyKinds, what);
    c.bytes = Unsigned(At(row, 1, what), what);
    c.pageable_host = Boolean(At(row, 2, what), what);
    c.device = Unsigned32(At(row, 3, what), what);
    c.stream = Unsigned32(At(row, 4, what), what);
    c.start_ns = Integer(At(row, 5, what), what);
    c.end_ns = Integer(At(row, 6, what), what);
    Interval(c.start_ns, c.end_ns, what);
    c.correlation_id = Unsigned32(At(row, 7, what), what);
    c.external_id = Unsigned(At(row, 8, what), what);
    out.memcpys.push_back(c);
  }
  for (const json& row : ArrayField(events, "memsets")) {
    const char* what = "events.memsets";
    MemsetEvent m;
    m.bytes = Unsigned(At(row, 0, what), what);
    m.device = Unsigned32(At(row, 1, what), what);
    m.stream = Unsigned32(At(row, 2, what), what);
    m.start_ns = Integer(At(row, 3, what), what);
    m.end_ns = Integer(At(row, 4, what), what);
    Interval(m.start_ns, m.end_ns, what);
    m.correlation_id = Unsigned32(At(row, 5, what), what);
    m.external_id = Unsigned(At(row, 6, what), what);
    out.memsets.push_back(m);
  }
  for (const json& row : ArrayField(events, "syncs")) {
    const char* what = "events.syncs";
    SyncEvent s;
    s.kind = EnumOf<SyncKind>(At(row, 0, what), kSyncKinds, what);
    s.stream = Unsigned32(At(row, 1, what), what);
    s.start_ns = Integer(At(row, 2, what), what);
    s.end_ns = Integer(At(row, 3, what), what);
    Interval(s.start_ns, s.end_ns, what);
    s.correlation_id = Unsigned32(At(row, 4, what), what);
    s.external_id = Unsigned(At(row, 5, what), what);
    out.syncs.push_back(s);
  }
  for (const json& row : ArrayField(events, "api_calls")) {
    const char* what = "events.api_calls";
    ApiCallEvent a;
    a.name = NameAt(names, At(row, 0, what), what);
    a.driver = Boolean(At(row, 1, what), what);
    a.thread = Unsigned(At(row, 2, what), what);
    a.start_ns = Integer(At(row, 3, what), what);
    a.end_ns = Integer(At(row, 4, what), what);
    Interval(a.start_ns, a.end_ns, what);
    a.correlation_id = Unsigned32(At(row, 5, what), what);
    a.external_id = Unsigned(At(row, 6, what), what);
    out.api_calls.push_back(std::move(a));
  }
  for (const json& row : ArrayField(events, "probes")) {
    const char* what = "events.probes";
    ProbeStatus p;
    p.probe = String(At(row, 0, what), what);
    p.active = Boolean(At(row, 1, what), what);
    p.detail = String(At(row, 2, what), what);
    p.dropped_records = Unsigned(At(row, 3, what), what);
    out.probes.push_back(std::move(p));
  }
  out.page_fault_ns = PageFaultNs(events);
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

std::vector<StepSpan> StepsFromJson(const json& steps) {
  if (!steps.is_array()) throw ProbeMessageError("steps: not an array");
  std::vector<StepSpan> out;
  for (const json& row : steps) {
    StepSpan step;
    step.index = Int32(At(row, 0, "steps"), "steps index");
    step.start_ns = Integer(At(row, 1, "steps"), "steps start");
    step.end_ns = Integer(At(row, 2, "steps"), "steps end");
    Interval(step.start_ns, step.end_ns, "steps");
    if (!out.empty() && step.start_ns < out.back().end_ns) {
      throw ProbeMessageError("steps: step " + std::to_string(step.index) +
                              " starts before the previous one ends");
    }
    TimeNs previous_end = step.start_ns;
    const json& phases = At(row, 3, "steps");
    if (!phases.is_array()) throw ProbeMessageError("steps phases: not an array");
    for (const json& phase : phases) {
      PhaseSpan span;
      span.phase = EnumOf<Phase>(At(phase, 0, "steps phases"), kPhases, "steps phase");
      span.start_ns = Integer(At(phase, 1, "steps phases"), "steps phase start");
      span.end_ns = Integer(At(phase, 2, "steps phases"), "steps phase end");
      if (span.start_ns < previous_end || span.end_ns < span.start_ns ||
          span.end_ns > step.end_ns) {
        throw ProbeMessageError("steps: step " + std::to_string(step.index) +
                                " has phases out of order or outside the step");
      }
      previous_end = span.end_ns;
      step.phases.push_back(span);
    }
    out.push_back(std::move(step));
  }
  return out;
}

}  // namespace advisor
