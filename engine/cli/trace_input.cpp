#include "engine/cli/trace_input.h"

#include <stdexcept>

#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_records.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

// A trace that gives no step (no events, every event malformed, or no op and no ProfilerStep
// range) is an error, not a report of "0.000 ms median over 0 steps".
void CheckHasSteps(const TraceStore& store, const ProfilerTraceWindow& trace) {
  if (!trace.window.timeline.steps.empty()) return;
  const ReadStats& stats = store.stats;
  std::string why;
  if (stats.events == 0 && stats.skipped_events == 0) {
    why = "the trace holds no events";
  } else if (stats.events == 0) {
    why = Printf("all %llu of its events are malformed",
                 static_cast<unsigned long long>(stats.skipped_events));
    if (!stats.problems.empty()) why += " (the first: " + stats.problems.front() + ")";
  } else {
    why = Printf("none of its %llu events is an op or a ProfilerStep#N range",
                 static_cast<unsigned long long>(stats.events));
  }
  throw std::runtime_error(store.path + ": no step to analyse: " + why);
}

}  // namespace

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string Duration(double seconds) {
  return seconds < 1 ? Printf("%.0f ms", seconds * 1e3) : Printf("%.2f s", seconds);
}

RankTrace ReadRankTrace(TraceInputs& inputs, const TraceInput& input, const ReadOptions& read,
                        OpPlacementsKept kept,
                        const std::function<void(const std::string&)>& progress,
                        StageClock& stages) {
  progress("reading " + input.name);
  const auto read_start = std::chrono::steady_clock::now();
  TraceStore store = inputs.Read(input, read);
  progress(Printf("read %llu events (%.1f MB of JSON) in %s",
                  static_cast<unsigned long long>(store.stats.events), store.stats.json_bytes / 1e6,
                  Duration(SecondsSince(read_start)).c_str()));
  stages.Done("read");
  // Which inflater read a .json.gz: a build finds ISA-L's where it can, and falls back to zlib's,
  // a third of its speed.
  if (store.stats.compressed) stages.Note("inflater: " + store.stats.inflater);
  RankTrace rank;
  rank.path = input.name;
  rank.distributed = store.metadata.distributed;
  // The events go as the records are read from them, before the window, about as large, is
  // built.
  RecordsSerialTimes serial;
  TraceRecords records = TakeTraceRecords(store, read.threads, &serial);
  stages.Done("records");
  // What of the stage ran on one thread, whatever the threads, in that thread's CPU time: what
  // bounds the stage on many cores.
  stages.Note(
      Printf("records on one thread, CPU: join %.0f ms, host links %.0f ms, GPU links %.0f "
             "ms, steps %.0f ms",
             serial.join_ms, serial.host_ms, serial.gpu_ms, serial.steps_ms));
  rank.trace = BuildProfilerTraceWindow(store, std::move(records), kept, read.threads);
  stages.Done("window");
  CheckHasSteps(store, rank.trace);
  rank.report = ReportOfTrace(store, rank.trace, read.threads);
  return rank;
}

}  // namespace advisor
