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

std::vector<double> GpuAttribution::DeviceMsByOp() const {
  if (!recorded) return {};
  std::vector<double> ms;
  ms.reserve(by_op.size());
  for (const GpuTime& time : by_op) ms.push_back(time.device_ns() * 1e-6);
  return ms;
}

GpuAttribution AttributeGpuTime(const Timeline& timeline, const OpPlacements& placements) {
  GpuAttribution attribution;
  attribution.recorded = GpuProbeRecorded(timeline);
  // A CPU run's ops launched nothing: indexing millions of them for no record cost seconds, and
  // a time per op is kept only where DeviceMsByOp gives it or a record is charged to it.
  const bool device_work =
      !timeline.kernels.empty() || !timeline.memcpys.empty() || !timeline.memsets.empty();
  if (attribution.recorded || device_work) attribution.by_op.resize(timeline.ops.size());
  if (!device_work) return attribution;
  const OpLookup lookup(timeline);

  const auto charge = [&](std::uint64_t external_id, const GpuTime& time) {
    attribution.total += time;
    const int op = lookup.LaunchingOp(external_id);
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
  };
  for (const KernelEvent& kernel : timeline.kernels) {
    GpuTime time;
    time.kernel_ns = kernel.end_ns - kernel.start_ns;
    time.kernels = 1;
    charge(kernel.external_id, time);
  }
  for (const MemcpyEvent& copy : timeline.memcpys) {
    GpuTime time;
    time.memcpy_ns = copy.end_ns - copy.start_ns;
    charge(copy.external_id, time);
  }
  for (const MemsetEvent& memset : timeline.memsets) {
    GpuTime time;
    time.memset_ns = memset.end_ns - memset.start_ns;
    charge(memset.external_id, time);
  }
  return attribution;
}

}  // namespace advisor
