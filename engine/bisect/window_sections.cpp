#include "engine/bisect/window_sections.h"

#include <string>

#include "engine/gpu/copy_sites.h"
#include "engine/gpu/device_allocations.h"
#include "engine/gpu/gpu_summary.h"
#include "engine/gpu/sync_sites.h"

namespace advisor {

OpTime ToOpTime(const OpCost& op) {
  OpTime time;
  time.name = op.name;
  time.phase = PhaseName(op.phase);
  time.calls = static_cast<int>(op.calls + 0.5);
  time.ms = op.cost.host_ms;
  time.gpu_ms = op.cost.gpu_ms;
  time.self_ms = op.self_host_ms;
  return time;
}

void FillWindowSections(const MeasuredWindow& window, const std::optional<DeviceLimits>& limits,
                        BisectReport& report) {
  report.ops.clear();
  for (const OpCost& op : window.attribution->StepOps()) report.ops.push_back(ToOpTime(op));
  report.gpu = SummariseGpu(window.timeline, limits);
  report.syncs = FindSyncSites(window.timeline, window.placements);
  report.copies = FindCopySites(window.timeline, window.placements);
  if (report.memory) report.memory->num_device_allocs = CountDeviceAllocations(window.timeline);
  for (const ProbeStatus& probe : window.timeline.probes) {
    if (!probe.active) {
      report.data_quality.push_back(probe.probe + " probe inactive: " + probe.detail);
    } else if (probe.probe != "ops" && !probe.detail.empty()) {
      report.data_quality.push_back(probe.probe + ": " + probe.detail);
    }
    if (probe.dropped_records > 0) {
      report.data_quality.push_back(probe.probe + " probe dropped " +
                                    std::to_string(probe.dropped_records) + " records");
    }
  }
}

}  // namespace advisor
