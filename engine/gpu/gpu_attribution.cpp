#include "engine/gpu/gpu_attribution.h"

#include <algorithm>

#include "engine/gpu/op_lookup.h"

namespace advisor {

GpuTime& GpuTime::operator+=(const GpuTime& other) {
  kernel_ns += other.kernel_ns;
  memcpy_ns += other.memcpy_ns;
  memset_ns += other.memset_ns;
  kernels += other.kernels;
  return *this;
}

bool GpuProbeRecorded(const Timeline& timeline) {
  return std::any_of(timeline.probes.begin(), timeline.probes.end(), [](const ProbeStatus& status) {
    return status.probe == "cupti" && status.active;
  });
}

namespace {

std::vector<double> MsOf(const std::vector<GpuTime>& by_op) {
  std::vector<double> ms;
  ms.reserve(by_op.size());
  for (const GpuTime& time : by_op) ms.push_back(time.device_ns() * 1e-6);
  return ms;
}

bool HasDeviceWork(const Timeline& timeline) {
  return !timeline.kernels.empty() || !timeline.memcpys.empty() || !timeline.memsets.empty();
}

// Calls charge(op, time) for each kernel, copy and memset, in that order: `op` the index of the op
// that launched it (LaunchingOps), -1 where no recorded op did.
template <typename Charge>
void ForEachLaunch(const Timeline& timeline, Charge charge) {
  const LaunchingOps launching(timeline);
  for (const KernelEvent& kernel : timeline.kernels) {
    GpuTime time;
    time.kernel_ns = kernel.end_ns - kernel.start_ns;
    time.kernels = 1;
    charge(launching.Of(kernel.external_id), time);
  }
  for (const MemcpyEvent& copy : timeline.memcpys) {
    GpuTime time;
    time.memcpy_ns = copy.end_ns - copy.start_ns;
    charge(launching.Of(copy.external_id), time);
  }
  for (const MemsetEvent& memset : timeline.memsets) {
    GpuTime time;
    time.memset_ns = memset.end_ns - memset.start_ns;
    charge(launching.Of(memset.external_id), time);
  }
}

}  // namespace

std::vector<double> GpuAttribution::DeviceMsByOp() const {
  if (!recorded) return {};
  return MsOf(by_op);
}

GpuAttribution AttributeGpuTime(const Timeline& timeline, const OpPlacements& placements) {
  GpuAttribution attribution;
  attribution.recorded = GpuProbeRecorded(timeline);
  // A CPU run's ops launched nothing: indexing millions of them for no record cost seconds, and
  // a time per op is kept only where DeviceMsByOp gives it or a record is charged to it.
  const bool device_work = HasDeviceWork(timeline);
  if (attribution.recorded || device_work) attribution.by_op.resize(timeline.ops.size());
  if (!device_work) return attribution;
  ForEachLaunch(timeline, [&](int op, const GpuTime& time) {
    attribution.total += time;
    if (op < 0) {
      attribution.without_op += time;
      return;
    }
    attribution.by_op[op] += time;
    const OpPlacement& placement = placements[op];
    if (placement.step < 0) {
      attribution.outside_steps += time;
      return;
    }
    attribution.by_op_name[timeline.ops[op].name.str()] += time;
    attribution.by_module[placements.ModuleOf(op)] += time;
    attribution.by_phase[placement.phase] += time;
  });
  return attribution;
}

std::vector<double> DeviceMsByOp(const Timeline& timeline) {
  if (!GpuProbeRecorded(timeline)) return {};
  // Nanoseconds summed as GpuTime::device_ns() sums them, then made milliseconds as MsOf does.
  std::vector<TimeNs> ns(timeline.ops.size(), 0);
  if (HasDeviceWork(timeline)) {
    ForEachLaunch(timeline, [&ns](int op, const GpuTime& time) {
      if (op >= 0) ns[op] += time.device_ns();
    });
  }
  std::vector<double> ms;
  ms.reserve(ns.size());
  for (const TimeNs op_ns : ns) ms.push_back(op_ns * 1e-6);
  return ms;
}

}  // namespace advisor
