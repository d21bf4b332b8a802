#include "engine/report/chrome_trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "engine/analysis/sequence_numbers.h"
#include "engine/gpu/cuda_api_names.h"
#include "engine/gpu/intervals.h"
#include "engine/gpu/op_lookup.h"
#include "engine/report/kineto_members.h"
#include "engine/report/module_spans.h"
#include "engine/report/nested_lanes.h"
#include "engine/report/trace_event_stream.h"

namespace advisor {
namespace {

using nlohmann::json;

// Process ids: GPU d is d, as Kineto numbers it (TensorBoard's plugin takes a GPU event's pid for
// its device), one process for every window's work on it; the run overview is 99, after the
// devices; window w (from 1) is kWindowPidStride * w on the host.
constexpr int kRunPid = 99;
constexpr int kWindowPidStride = 100;
// The range the script probe synchronises the device in (own_sync.py's RANGE): advisor's own,
// which readers of the trace pass over (engine/trace_analysis, IsAdvisorOwn).
constexpr const char* kOwnSyncRange = "advisor::synchronize";

// Trace times: microseconds after the window's first event.
class TraceClock {
 public:
  explicit TraceClock(TimeNs origin) : origin_(origin) {}
  double Us(TimeNs time) const { return static_cast<double>(time - origin_) / 1e3; }
  TimeNs origin() const { return origin_; }

 private:
  TimeNs origin_;
};

// The first and last instants a window recorded; {0, 0} for an empty one.
Interval Extent(const Timeline& timeline) {
  TimeNs earliest = std::numeric_limits<TimeNs>::max();
  TimeNs latest = std::numeric_limits<TimeNs>::min();
  const auto see = [&](TimeNs start, TimeNs end) {
    earliest = std::min(earliest, start);
    latest = std::max(latest, end);
  };
  for (const StepSpan& step : timeline.steps) see(step.start_ns, step.end_ns);
  for (const OpEvent& op : timeline.ops) see(op.start_ns, op.end_ns);
  for (const MarkerEvent& marker : timeline.markers) see(marker.time_ns, marker.time_ns);
  for (const KernelEvent& kernel : timeline.kernels) see(kernel.start_ns, kernel.end_ns);
  for (const MemcpyEvent& copy : timeline.memcpys) see(copy.start_ns, copy.end_ns);
  for (const MemsetEvent& memset : timeline.memsets) see(memset.start_ns, memset.end_ns);
  for (const SyncEvent& sync : timeline.syncs) see(sync.start_ns, sync.end_ns);
  for (const ApiCallEvent& call : timeline.api_calls) see(call.start_ns, call.end_ns);
  if (earliest > latest) return {0, 0};
  return {earliest, latest};
}

// Hands out thread ids and writes the metadata that names and orders processes and threads. A
// track's name keeps its thread id in every window: a trace's readers know threads by tid alone
// (not pid), and a backward node's "Fwd thread id" is mapped to one tid for the whole trace, so
// that "thread 1" must be the same tid in the baseline and in every level's window.
class Tracks {
 public:
  explicit Tracks(TraceEventStream& stream) : stream_(stream) {}

  // Once a process: a GPU's serves every window.
  void NameProcess(int pid, const std::string& name) {
    if (!named_.insert(pid).second) return;
    stream_.Add({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
    stream_.Add({{"ph", "M"},
                 {"name", "process_sort_index"},
                 {"pid", pid},
                 {"args", {{"sort_index", pid}}}});
  }

  // One track per lane, named `name`, then "name (overlap 1)" and so on.
  std::vector<int> AddLanes(int pid, const std::string& name, int lanes) {
    std::vector<int>& known = tids_of_[name];
    while (known.size() < static_cast<std::size_t>(std::max(lanes, 1)))
      known.push_back(next_tid_++);
    const std::vector<int> tids(known.begin(), known.begin() + std::max(lanes, 1));
    for (std::size_t lane = 0; lane < tids.size(); ++lane) {
      const std::string track = lane == 0 ? name : name + " (overlap " + std::to_string(lane) + ")";
      stream_.Add({{"ph", "M"},
                   {"name", "thread_name"},
                   {"pid", pid},
                   {"tid", tids[lane]},
                   {"args", {{"name", track}}}});
      stream_.Add({{"ph", "M"},
                   {"name", "thread_sort_index"},
                   {"pid", pid},
                   {"tid", tids[lane]},
                   {"args", {{"sort_index", tids[lane]}}}});
    }
    return tids;
  }

 private:
  TraceEventStream& stream_;
  std::map<std::string, std::vector<int>> tids_of_;  // by track name, one per lane
  std::set<int> named_;                              // pids
  int next_tid_ = 1;
};

json Complete(const std::string& name, const char* category, int pid, int tid, TimeNs start,
              TimeNs end, const TraceClock& clock, json args = json::object()) {
  return {{"ph", "X"},
          {"name", name},
          {"cat", category},
          {"pid", pid},
          {"tid", tid},
          {"ts", clock.Us(start)},
          {"dur", static_cast<double>(end - start) / 1e3},
          {"args", std::move(args)}};
}

// Lays events out on lanes of one named track and returns each one's tid, same order.
std::vector<int> PlaceOnLanes(Tracks& tracks, int pid, const std::string& name,
                              const std::vector<Interval>& intervals) {
  const std::vector<int> lanes = AssignNestedLanes(intervals);
  const int lane_count = lanes.empty() ? 1 : *std::max_element(lanes.begin(), lanes.end()) + 1;
  const std::vector<int> tids = tracks.AddLanes(pid, name, lane_count);
  std::vector<int> placed;
  for (int lane : lanes) placed.push_back(tids[lane]);
  return placed;
}

// Kineto's categories: ATen ops and autograd nodes are cpu_op (a node tells itself by its
// "Fwd thread id"), record_function ranges user_annotation.
const char* OpCategory(OpScope scope) {
  return scope == OpScope::kUser ? "user_annotation" : "cpu_op";
}

// Kineto's names: "Memcpy HtoD (Pageable -> Device)".
std::string MemcpyName(const MemcpyEvent& copy) {
  const char* host = copy.pageable_host ? "Pageable" : "Pinned";
  switch (copy.kind) {
    case MemcpyKind::kHostToDevice:
      return std::string("Memcpy HtoD (") + host + " -> Device)";
    case MemcpyKind::kDeviceToHost:
      return std::string("Memcpy DtoH (Device -> ") + host + ")";
    case MemcpyKind::kDeviceToDevice:
      return "Memcpy DtoD (Device -> Device)";
    case MemcpyKind::kOther:
      break;
  }
  return "Memcpy";
}

// CUPTI's synchronisation records as Kineto names them.
const char* SyncName(SyncKind kind) {
  switch (kind) {
    case SyncKind::kStream:
      return "Stream Sync";
    case SyncKind::kDevice:
      return "Device Sync";
    case SyncKind::kContext:
      return "Context Sync";
    case SyncKind::kEvent:
      return "Event Sync";
    case SyncKind::kStreamWaitEvent:
      return "Stream Wait Event";
    case SyncKind::kOther:
      break;
  }
  return "Sync";
}

// CUPTI names OS threads; the op probe names RecordFunction threads. The ops whose ids an OS
// thread's calls carry say which op thread it is.
std::map<ThreadId, ThreadId> OpThreadOfApiThreads(const Timeline& timeline,
                                                  const OpLookup& lookup) {
  std::map<ThreadId, std::map<ThreadId, int>> votes;
  for (const ApiCallEvent& call : timeline.api_calls) {
    const int op = lookup.LaunchingOp(call.external_id);
    if (op >= 0) ++votes[call.thread][timeline.ops[op].thread];
  }
  std::map<ThreadId, ThreadId> op_thread;
  for (const auto& [os_thread, counts] : votes) {
    op_thread[os_thread] =
        std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
          return a.second < b.second;
        })->first;
  }
  return op_thread;
}

// One kernel, copy or memset, as the GPU tracks show it.
struct GpuWork {
  std::string name;
  const char* category;
  std::uint32_t device;
  std::uint32_t stream;
  TimeNs start_ns;
  TimeNs end_ns;
  std::uint32_t correlation_id;
  std::uint64_t external_id;
  json args;
};

// A span of advisor's own (a phase, a module's backward, a window): category "advisor", what it
// is in args.kind, so that torch.profiler's readers pass over it and a viewer still shows it.
json AdvisorSpan(const std::string& name, const char* kind, int pid, int tid, TimeNs start,
                 TimeNs end, const TraceClock& clock, json args = json::object()) {
  args["kind"] = kind;
  return Complete(name, "advisor", pid, tid, start, end, clock, std::move(args));
}

// A flow arrow, ph "s" or "f", in Kineto's shape: "ac2g" from a launch to its GPU work, "fwdbwd"
// from a forward op to its backward node.
json FlowEnd(char phase, const char* category, std::uint64_t id, int pid, int tid, double ts_us) {
  json flow = {{"ph", std::string(1, phase)},
               {"id", id},
               {"name", category},
               {"cat", category},
               {"pid", pid},
               {"tid", tid},
               {"ts", ts_us}};
  if (phase == 'f') flow["bp"] = "e";
  return flow;
}

// The largest CUPTI correlation id a window's records carry (0 where none does).
std::uint64_t MaxCorrelation(const Timeline& timeline) {
  std::uint64_t most = 0;
  const auto take = [&](const auto& records) {
    for (const auto& record : records) most = std::max<std::uint64_t>(most, record.correlation_id);
  };
  take(timeline.api_calls);
  take(timeline.kernels);
  take(timeline.memcpys);
  take(timeline.memsets);
  take(timeline.syncs);
  return most;
}

// What the windows number together: no two forward-to-backward arrows share an id, no two windows'
// CUDA work shares a correlation id, and the ProfilerStep#N count the trace's steps in order, as
// the profiler's own steps do (HTA and TensorBoard tell iterations by N).
struct TraceCounters {
  // Each window's CUPTI correlation ids are shifted past the windows before it: a window records
  // with a CUPTI session of its own, whose ids start again at 1, and a reader that links a
  // kernel to its launch by correlation id (advisor analyze, HTA, TensorBoard's plugin, the
  // ac2g arrows) would link a later window's kernels to the first window's launches.
  std::uint64_t correlation_offset = 0;
  // Above every shifted correlation id, which the ac2g arrows use as theirs.
  std::uint64_t next_flow_id = std::uint64_t{1} << 32;
  int next_step = 0;
};

// One window: its processes, tracks and flows.
class WindowWriter {
 public:
  // `number` counts windows from 1.
  WindowWriter(const LabelledWindow& window, int number, const TraceClock& clock,
               TraceEventStream& stream, Tracks& tracks, TraceCounters& counters)
      : timeline_(window.timeline),
        placements_(window.placements),
        lookup_(window.timeline),
        clock_(clock),
        stream_(stream),
        tracks_(tracks),
        counters_(counters),
        name_("window " + std::to_string(number)),
        host_pid_(kWindowPidStride * number),
        op_tid_(window.timeline.ops.size(), 0),
        call_tid_(window.timeline.api_calls.size(), 0),
        correlation_offset_(counters.correlation_offset) {
    tracks_.NameProcess(host_pid_, name_ + ": " + window.label);
  }

  void Write() {
    WriteSteps();
    WriteHostThreads();
    WriteSyncRecords();
    WriteGpuWork();
    WriteBackwardFlows();
    counters_.correlation_offset += MaxCorrelation(timeline_);
  }

 private:
  // A CUPTI correlation id as the trace writes it: unique in the file (TraceCounters).
  std::uint64_t Correlation(std::uint32_t id) const {
    return id == 0 ? 0 : correlation_offset_ + id;
  }

  // Each step as torch.profiler's prof.step() brackets it, ProfilerStep#N, and its phases. A step
  // ends 1 ns before the next one starts where they touch, as the profiler's own steps do (one
  // record_function closes before the next opens): a reader adds ts and dur in doubles, and
  // 2357591.637 + 100103.473 lands past 2457695.11, which TensorBoard's plugin reported as steps
  // that intersect on an H200 run's trace.
  void WriteSteps() {
    if (timeline_.steps.empty()) return;
    const int tid = tracks_.AddLanes(host_pid_, "steps", 1)[0];
    for (std::size_t i = 0; i < timeline_.steps.size(); ++i) {
      const StepSpan& step = timeline_.steps[i];
      TimeNs end = step.end_ns;
      if (i + 1 < timeline_.steps.size() && timeline_.steps[i + 1].start_ns <= end) {
        end = std::max(step.start_ns, timeline_.steps[i + 1].start_ns - 1);
      }
      stream_.Add(Complete("ProfilerStep#" + std::to_string(counters_.next_step++),
                           "user_annotation", host_pid_, tid, step.start_ns, end, clock_,
                           {{"window_step", step.index}}));
      for (const PhaseSpan& span : step.phases) {
        stream_.Add(AdvisorSpan(PhaseName(span.phase), "phase", host_pid_, tid, span.start_ns,
                                std::max(span.start_ns, std::min(span.end_ns, end)), clock_,
                                {{"step", step.index}}));
      }
    }
  }

  // Per op thread, one track as Kineto has it: its ops, the CUDA calls made on it (inside the op
  // that made them) and the module spans around them, on lanes that nest.
  void WriteHostThreads() {
    const std::map<ThreadId, ThreadId> op_thread_of = OpThreadOfApiThreads(timeline_, lookup_);
    std::map<ThreadId, ThreadEvents> by_thread;
    std::map<ThreadId, std::vector<std::size_t>> unplaced_calls;  // by OS thread
    for (std::size_t i = 0; i < timeline_.ops.size(); ++i)
      by_thread[timeline_.ops[i].thread].ops.push_back(i);
    for (std::size_t i = 0; i < timeline_.api_calls.size(); ++i) {
      const ThreadId os_thread = timeline_.api_calls[i].thread;
      auto it = op_thread_of.find(os_thread);
      if (it != op_thread_of.end()) {
        by_thread[it->second].calls.push_back(i);
      } else {
        unplaced_calls[os_thread].push_back(i);
      }
    }
    std::vector<ModuleSpan> spans = RebuildModuleSpans(timeline_);
    EndInferredBackwardSpansWithTheirOps(timeline_, placements_, spans);
    for (std::size_t i = 0; i < spans.size(); ++i) by_thread[spans[i].thread].spans.push_back(i);

    for (const auto& [thread, events] : by_thread) {
      WriteThread("thread " + std::to_string(thread), events, spans);
    }
    for (const auto& [os_thread, calls] : unplaced_calls) {
      WriteThread("CUDA API, OS thread " + std::to_string(os_thread), {{}, calls, {}}, spans);
    }
  }

  // Indices into the timeline's ops and API calls and into the module spans.
  struct ThreadEvents {
    std::vector<std::size_t> ops;
    std::vector<std::size_t> calls;
    std::vector<std::size_t> spans;
  };

  void WriteThread(const std::string& track, const ThreadEvents& events,
                   const std::vector<ModuleSpan>& spans) {
    const std::vector<std::size_t> own_waits = OwnWaits(events);
    std::vector<Interval> intervals;
    for (std::size_t i : events.ops)
      intervals.push_back({timeline_.ops[i].start_ns, timeline_.ops[i].end_ns});
    for (std::size_t i : own_waits)
      intervals.push_back({timeline_.api_calls[i].start_ns, timeline_.api_calls[i].end_ns});
    for (std::size_t i : events.calls)
      intervals.push_back({timeline_.api_calls[i].start_ns, timeline_.api_calls[i].end_ns});
    for (std::size_t i : events.spans) intervals.push_back({spans[i].start_ns, spans[i].end_ns});
    const std::vector<int> tids = PlaceOnLanes(tracks_, host_pid_, track, intervals);
    // tids holds the ops' lanes, then the own ranges', the calls' and the spans', as the
    // intervals were given: an own range before its call, so that it encloses the call.
    std::size_t next = 0;
    for (std::size_t i : events.ops) {
      op_tid_[i] = tids[next++];
      WriteOp(i, op_tid_[i]);
    }
    for (std::size_t i : own_waits) {
      const ApiCallEvent& call = timeline_.api_calls[i];
      stream_.Add(Complete(kOwnSyncRange, "user_annotation", host_pid_, tids[next++], call.start_ns,
                           call.end_ns, clock_, {{"advisor", "own synchronisation"}}));
    }
    for (std::size_t i : events.calls) {
      call_tid_[i] = tids[next++];
      WriteCall(i, call_tid_[i]);
    }
    for (std::size_t i : events.spans) WriteModuleSpan(spans[i], tids[next++]);
  }

  // The waits for the device that no op made though an op of their thread was running: the
  // script probe's own synchronisation at a measured step's end, inside the user's
  // Optimizer.step#, in a range of its own that the op probe leaves out of the window and links
  // no op to (probes/python/site/advisor_probe/own_sync.py). Each is written inside that range
  // again (kOwnSyncRange), or a reader that links calls to ops by time, as advisor analyze does,
  // would take it for the enclosing op's.
  std::vector<std::size_t> OwnWaits(const ThreadEvents& events) const {
    std::vector<Interval> ops;
    for (std::size_t i : events.ops)
      ops.push_back({timeline_.ops[i].start_ns, timeline_.ops[i].end_ns});
    std::sort(ops.begin(), ops.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
    // latest_end[k]: the latest end of ops[0..k], so an op that starts by a call's start
    // encloses it where the latest end of those is past the call's.
    std::vector<TimeNs> latest_end;
    for (const Interval& op : ops) {
      latest_end.push_back(latest_end.empty() ? op.end : std::max(latest_end.back(), op.end));
    }
    std::vector<std::size_t> own;
    for (std::size_t i : events.calls) {
      const ApiCallEvent& call = timeline_.api_calls[i];
      if (call.external_id != 0 || !HostWaitOf(call.name)) continue;
      const auto after =
          std::upper_bound(ops.begin(), ops.end(), call.start_ns,
                           [](TimeNs at, const Interval& op) { return at < op.start; });
      const auto started = static_cast<std::size_t>(after - ops.begin());
      if (started > 0 && latest_end[started - 1] >= call.end_ns) own.push_back(i);
    }
    return own;
  }

  // Kineto's arguments ("External id": the id its GPU work carries; "Sequence number" and, on a
  // backward node, "Fwd thread id": the thread of the forward op that made it), then advisor's
  // placement of the op.
  void WriteOp(std::size_t i, int tid) {
    const OpEvent& op = timeline_.ops[i];
    const OpPlacement& placement = placements_[i];
    json args = json::object();
    const std::uint64_t correlation_id = timeline_.CorrelationOf(i);
    if (correlation_id != 0) args["External id"] = correlation_id;
    const OpSequence& sequence = timeline_.SequenceOf(i);
    if (sequence.seq_nr >= 0) {
      args["Sequence number"] = sequence.seq_nr;
      args["Fwd thread id"] = op.scope == OpScope::kBackward ? sequence.forward_thread : 0;
    }
    args["module"] = placements_.ModuleOf(i).Shown();
    args["phase"] = PhaseName(placement.phase);
    args["step"] = placement.step;
    const std::int64_t page_faults = timeline_.CountsOf(i).page_faults;
    if (page_faults >= 0) args["page_faults"] = page_faults;
    stream_.Add(Complete(op.name.str(), OpCategory(op.scope), host_pid_, tid, op.start_ns,
                         op.end_ns, clock_, std::move(args)));
  }

  void WriteCall(std::size_t i, int tid) {
    const ApiCallEvent& call = timeline_.api_calls[i];
    json args = {{"correlation", Correlation(call.correlation_id)}, {"os_thread", call.thread}};
    if (call.external_id != 0) args["External id"] = call.external_id;
    stream_.Add(Complete(call.name, call.driver ? "cuda_driver" : "cuda_runtime", host_pid_, tid,
                         call.start_ns, call.end_ns, clock_, std::move(args)));
  }

  // A module's forward as record_function("path") writes it, a user_annotation named by the
  // instance's whole path: the readers of torch.profiler traces take such a label for the
  // module (advisor analyze does), where python_function's "nn.Module: Linear_0" names a class
  // and Python object ids advisor does not record. Backward spans have no Kineto counterpart.
  void WriteModuleSpan(const ModuleSpan& span, int tid) {
    if (!span.backward) {
      stream_.Add(Complete(span.path.str(), "user_annotation", host_pid_, tid, span.start_ns,
                           span.end_ns, clock_, {{"advisor", "module forward"}}));
      return;
    }
    json args = json::object();
    if (span.end_inferred) args["end_inferred"] = true;
    stream_.Add(AdvisorSpan(span.path.str(), "module backward", host_pid_, tid, span.start_ns,
                            span.end_ns, clock_, std::move(args)));
  }

  // CUPTI's synchronisation records carry no thread: one track for all of them.
  void WriteSyncRecords() {
    if (timeline_.syncs.empty()) return;
    std::vector<Interval> intervals;
    for (const SyncEvent& sync : timeline_.syncs) intervals.push_back({sync.start_ns, sync.end_ns});
    const std::vector<int> tids =
        PlaceOnLanes(tracks_, host_pid_, "CUDA synchronisation", intervals);
    for (std::size_t i = 0; i < timeline_.syncs.size(); ++i) {
      const SyncEvent& sync = timeline_.syncs[i];
      json args = {{"stream", sync.stream}, {"correlation", Correlation(sync.correlation_id)}};
      if (sync.external_id != 0) args["External id"] = sync.external_id;
      stream_.Add(Complete(SyncName(sync.kind), "cuda_sync", host_pid_, tids[i], sync.start_ns,
                           sync.end_ns, clock_, std::move(args)));
    }
  }

  // Kernels, copies and memsets of each stream on that stream's track, with Kineto's arguments,
  // and an ac2g arrow from the CUDA call that launched each to it.
  void WriteGpuWork() {
    std::vector<GpuWork> work;
    for (const KernelEvent& k : timeline_.kernels) {
      json args = {{"grid", {k.grid[0], k.grid[1], k.grid[2]}},
                   {"block", {k.block[0], k.block[1], k.block[2]}},
                   {"registers per thread", k.registers_per_thread},
                   {"shared memory", k.static_shared_bytes + k.dynamic_shared_bytes}};
      work.push_back({k.name, "kernel", k.device, k.stream, k.start_ns, k.end_ns, k.correlation_id,
                      k.external_id, std::move(args)});
    }
    for (const MemcpyEvent& c : timeline_.memcpys) {
      work.push_back({MemcpyName(c),
                      "gpu_memcpy",
                      c.device,
                      c.stream,
                      c.start_ns,
                      c.end_ns,
                      c.correlation_id,
                      c.external_id,
                      {{"bytes", c.bytes}}});
    }
    for (const MemsetEvent& m : timeline_.memsets) {
      work.push_back({"Memset (Device)",
                      "gpu_memset",
                      m.device,
                      m.stream,
                      m.start_ns,
                      m.end_ns,
                      m.correlation_id,
                      m.external_id,
                      {{"bytes", m.bytes}}});
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::size_t>> by_stream;
    for (std::size_t i = 0; i < work.size(); ++i)
      by_stream[{work[i].device, work[i].stream}].push_back(i);

    std::unordered_set<std::uint32_t> flowed;  // one arrow per correlation id
    const std::unordered_map<std::uint32_t, std::size_t> launches = LaunchCalls();
    for (const auto& [device_stream, indices] : by_stream) {
      const auto [device, stream] = device_stream;
      const int pid = static_cast<int>(device);
      tracks_.NameProcess(pid, "GPU " + std::to_string(device));
      std::vector<Interval> intervals;
      for (std::size_t i : indices) intervals.push_back({work[i].start_ns, work[i].end_ns});
      const std::vector<int> tids =
          PlaceOnLanes(tracks_, pid, "stream " + std::to_string(stream), intervals);
      for (std::size_t k = 0; k < indices.size(); ++k) {
        GpuWork& item = work[indices[k]];
        if (item.external_id != 0) item.args["External id"] = item.external_id;
        item.args["correlation"] = Correlation(item.correlation_id);
        item.args["device"] = item.device;
        item.args["stream"] = item.stream;
        const int op = lookup_.LaunchingOp(item.external_id);
        if (op >= 0) item.args["op"] = timeline_.ops[op].name.str();
        stream_.Add(Complete(item.name, item.category, pid, tids[k], item.start_ns, item.end_ns,
                             clock_, std::move(item.args)));
        auto call = launches.find(item.correlation_id);
        if (call != launches.end() && flowed.insert(item.correlation_id).second) {
          const ApiCallEvent& launch = timeline_.api_calls[call->second];
          const std::uint64_t id = Correlation(item.correlation_id);
          stream_.Add(FlowEnd('s', "ac2g", id, host_pid_, call_tid_[call->second],
                              clock_.Us(launch.start_ns)));
          stream_.Add(FlowEnd('f', "ac2g", id, pid, tids[k], clock_.Us(item.start_ns)));
        }
      }
    }
  }

  // The runtime call (else the driver call) behind each correlation id, by its index: where an
  // arrow starts. A record without one (CUPTI recorded no call) gets no arrow.
  std::unordered_map<std::uint32_t, std::size_t> LaunchCalls() const {
    std::unordered_map<std::uint32_t, std::size_t> launches;
    for (std::size_t i = 0; i < timeline_.api_calls.size(); ++i) {
      const ApiCallEvent& call = timeline_.api_calls[i];
      if (call.correlation_id == 0) continue;
      auto [it, inserted] = launches.emplace(call.correlation_id, i);
      if (!inserted && timeline_.api_calls[it->second].driver && !call.driver) it->second = i;
    }
    return launches;
  }

  // An arrow from each forward op to the top-level backward node it created (Kineto's fwdbwd):
  // the readers of the trace learn from it which thread a node's "Fwd thread id" names.
  void WriteBackwardFlows() {
    const std::vector<int> creators = CreatingForwardOps(timeline_);
    for (std::size_t i = 0; i < creators.size(); ++i) {
      if (creators[i] < 0 || placements_[i].top_level != static_cast<int>(i)) continue;
      const auto creator = static_cast<std::size_t>(creators[i]);
      const std::uint64_t id = counters_.next_flow_id++;
      stream_.Add(FlowEnd('s', "fwdbwd", id, host_pid_, op_tid_[creator],
                          clock_.Us(timeline_.ops[creator].start_ns)));
      stream_.Add(
          FlowEnd('f', "fwdbwd", id, host_pid_, op_tid_[i], clock_.Us(timeline_.ops[i].start_ns)));
    }
  }

  const Timeline& timeline_;
  const OpPlacements& placements_;
  const OpLookup lookup_;
  const TraceClock& clock_;
  TraceEventStream& stream_;
  Tracks& tracks_;
  TraceCounters& counters_;
  const std::string name_;  // "window 2"
  const int host_pid_;
  std::vector<int> op_tid_;    // the track each op landed on
  std::vector<int> call_tid_;  // the track each API call landed on
  const std::uint64_t correlation_offset_;
};

// The run's overview: one span per window on a track of its own.
void WriteWindowOverview(const std::vector<LabelledWindow>& windows, const TraceClock& clock,
                         TraceEventStream& stream, Tracks& tracks) {
  if (windows.empty()) return;
  tracks.NameProcess(kRunPid, "run");
  const int tid = tracks.AddLanes(kRunPid, "windows", 1)[0];
  for (std::size_t w = 0; w < windows.size(); ++w) {
    const Interval extent = Extent(windows[w].timeline);
    if (extent.end <= extent.start) continue;
    stream.Add(AdvisorSpan("window " + std::to_string(w + 1) + ": " + windows[w].label, "window",
                           kRunPid, tid, extent.start, extent.end, clock,
                           {{"window", w + 1}, {"steps", windows[w].timeline.steps.size()}}));
  }
}

json OtherData(const std::vector<LabelledWindow>& windows, const TraceClock& clock) {
  json probes = json::array();
  for (std::size_t w = 0; w < windows.size(); ++w) {
    for (const ProbeStatus& status : windows[w].timeline.probes) {
      probes.push_back({{"window", w + 1},
                        {"probe", status.probe},
                        {"active", status.active},
                        {"detail", status.detail},
                        {"dropped_records", status.dropped_records}});
    }
  }
  return {{"generator", "advisor"},
          {"clock", "std::chrono::steady_clock"},
          {"origin_ns", clock.origin()},
          {"probes", std::move(probes)}};
}

}  // namespace

void WriteChromeTrace(const std::vector<LabelledWindow>& windows, const RunReport& report,
                      std::ostream& out) {
  TimeNs origin = std::numeric_limits<TimeNs>::max();
  for (const LabelledWindow& window : windows) {
    const Interval extent = Extent(window.timeline);
    if (extent.end > extent.start || extent.start != 0) origin = std::min(origin, extent.start);
  }
  const TraceClock clock(origin == std::numeric_limits<TimeNs>::max() ? 0 : origin);
  const json devices = DevicePropertiesOf(report, windows);
  TraceEventStream stream(out, {{"schemaVersion", 1},
                                {"deviceProperties", devices.empty() ? json() : devices},
                                {"distributedInfo", DistributedInfoOf(report)}});
  Tracks tracks(stream);
  WriteWindowOverview(windows, clock, stream, tracks);
  for (const json& annotation : FindingAnnotations(report, 0.0, kRunPid)) stream.Add(annotation);
  TraceCounters counters;
  std::uint64_t correlations = 0;
  for (const LabelledWindow& window : windows) correlations += MaxCorrelation(window.timeline);
  counters.next_flow_id = std::max(counters.next_flow_id, correlations + 1);
  for (std::size_t w = 0; w < windows.size(); ++w) {
    WindowWriter(windows[w], static_cast<int>(w) + 1, clock, stream, tracks, counters).Write();
  }
  // Every ts is microseconds after baseTimeNanoseconds, as in Kineto's traces; advisor's clock is
  // the host's steady clock, not the epoch.
  stream.Finish({{"displayTimeUnit", "ms"},
                 {"baseTimeNanoseconds", clock.origin()},
                 {"otherData", OtherData(windows, clock)}});
}

}  // namespace advisor
