// Device time per op, op name, module and phase: each kernel, memcpy and memset is charged to
// the innermost op whose correlation id CUPTI saw pushed when it was launched
// (KernelEvent::external_id == Timeline::CorrelationOf(op)).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct GpuTime {
  TimeNs kernel_ns = 0;
  TimeNs memcpy_ns = 0;
  TimeNs memset_ns = 0;
  std::int64_t kernels = 0;

  TimeNs device_ns() const { return kernel_ns + memcpy_ns + memset_ns; }
  GpuTime& operator+=(const GpuTime& other);
};

// True when the timeline holds an active "cupti" probe status: only then does no GPU work mean an
// idle device rather than an absent probe.
bool GpuProbeRecorded(const Timeline& timeline);

// Totals over the whole window; divide by the step count for per-step figures.
struct GpuAttribution {
  bool recorded = false;       // GpuProbeRecorded(timeline)
  std::vector<GpuTime> by_op;  // same order as Timeline::ops; each op's own launches only
  // Work launched by ops inside a step, keyed by the launching (innermost) op's name, its
  // innermost instrumented module ("" outside all of them), and its phase.
  std::map<std::string, GpuTime> by_op_name;
  std::map<ModulePath, GpuTime> by_module;
  std::map<Phase, GpuTime> by_phase;
  GpuTime outside_steps;  // launched by ops outside every step
  GpuTime without_op;     // no external id, or one that no recorded op carries
  GpuTime total;

  // Device time each op launched, in ms, as engine/analysis's WindowAttribution takes it: empty
  // when the GPU probe did not record, so that no GPU time is shown as zero GPU time.
  std::vector<double> DeviceMsByOp() const;
};

GpuAttribution AttributeGpuTime(const Timeline& timeline, const OpPlacements& placements);

// GpuAttribution::DeviceMsByOp without placing the ops (no op's share of the work depends on
// where it ran), and without the tables by name, module and phase: a window placed a segment at a
// time on several threads needs each op's device time before any is placed.
std::vector<double> DeviceMsByOp(const Timeline& timeline);

}  // namespace advisor
