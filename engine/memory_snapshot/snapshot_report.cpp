#include "engine/memory_snapshot/snapshot_report.h"

#include <algorithm>

#include "engine/memory_snapshot/annotation_context.h"
#include "engine/memory_snapshot/snapshot_memory.h"
#include "engine/memory_snapshot/snapshot_reader.h"
#include "engine/memory_snapshot/snapshot_replay.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

// The device with the most events (the first of equals).
std::size_t BusiestDevice(const MemorySnapshot& snapshot) {
  std::size_t busiest = 0;
  for (std::size_t d = 1; d < snapshot.device_traces.size(); ++d) {
    if (snapshot.device_traces[d].size() > snapshot.device_traces[busiest].size()) busiest = d;
  }
  return busiest;
}

void AddDataQuality(const MemorySnapshot& snapshot, const DeviceReplay& replay,
                    const EventContext& context, RunReport& report) {
  std::vector<std::string>& lines = report.data_quality;
  const auto devices_with_events =
      std::count_if(snapshot.device_traces.begin(), snapshot.device_traces.end(),
                    [](const std::vector<TraceEntry>& trace) { return !trace.empty(); });
  if (devices_with_events > 1) {
    lines.push_back(
        Printf("the memory section is device %zu's, the one of %lld devices whose "
               "history holds the most events",
               replay.device, static_cast<long long>(devices_with_events)));
  }
  if (replay.end_replayed_bytes != replay.end_segments_bytes) {
    lines.push_back(
        Printf("the replay ends with %.3f MB allocated where the snapshot's segments "
               "hold %.3f MB in active blocks: the history and the segments disagree",
               replay.end_replayed_bytes / 1048576.0, replay.end_segments_bytes / 1048576.0));
  }
  lines.insert(lines.end(), replay.notes.begin(), replay.notes.end());
  if (!snapshot.timed) {
    lines.push_back(
        "the history's entries have no time_us (torch 2.0): times are the events' "
        "indices, and record_function ranges cannot be placed");
  } else if (!context.annotated) {
    lines.push_back(
        "the snapshot holds no record_function ranges (record the history with "
        "global_record_annotations=True, torch 2.5+): phases come from the frames "
        "alone, and no module instance is named");
  }
  if (snapshot.other_actions > 0) {
    lines.push_back(
        Printf("%llu entries of actions advisor does not know were replayed as "
               "nothing",
               static_cast<unsigned long long>(snapshot.other_actions)));
  }
}

void AddAbsentSections(RunReport& report) {
  const char* no_time = "an allocator snapshot records memory, not time";
  report.absent.push_back({"step", no_time});
  report.absent.push_back({"bisection", no_time});
  report.absent.push_back({"hotspot", no_time});
  report.absent.push_back({"cross_check", no_time});
  report.absent.push_back({"modules",
                           "an allocator snapshot records no time per module; memory.modules "
                           "holds each module instance's memory where ranges name it"});
  report.absent.push_back({"ops", no_time});
  report.absent.push_back({"gpu", no_time});
  report.absent.push_back({"data", no_time});
  report.absent.push_back({"fixes",
                           "recipes are tried by re-running the workload; a snapshot cannot be "
                           "re-run"});
}

}  // namespace

RunReport ReportOfSnapshot(const MemorySnapshot& snapshot) {
  if (snapshot.device_traces.empty()) {
    throw SnapshotError(snapshot.path +
                        ": the snapshot holds no device history (device_traces is empty)");
  }
  const std::size_t device = BusiestDevice(snapshot);
  const DeviceReplay replay = ReplayDevice(snapshot, device);
  const EventContext context = ContextOfEvents(snapshot, device);

  RunReport report;
  report.run.mode = Door::kSnapshot;
  report.run.model = snapshot.path;
  report.run.device = "cuda";
  report.run.device_name = "cuda:" + std::to_string(device);
  report.run.advisor_version = ADVISOR_VERSION;
  report.memory = MemoryOfSnapshot(snapshot, replay, context);
  AddDataQuality(snapshot, replay, context, report);
  AddAbsentSections(report);
  return report;
}

}  // namespace advisor
