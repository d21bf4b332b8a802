// The collectives one rank ran, as the multi-rank analysis matches them across ranks: NCCL
// kernels on the device, or gloo's ranges on the host where no NCCL kernel ran.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/trace_analysis/host_events.h"
#include "engine/window/measured_window.h"

namespace advisor {

struct CollectiveCall {
  std::string name;           // "allreduce", else the launching range's or kernel's name
  std::string process_group;  // "" where the trace does not say
  std::int64_t seq = -1;      // its number within the process group ("Seq"); -1 where not said
  TimeNs start_ns = 0;        // the kernel on the device, or the gloo range on the host
  TimeNs end_ns = 0;
  bool on_device = false;
  int step = -1;              // the step of the op that issued it; -1 outside every step
};

// In start order. `collective_of_kernel`: what the kernels of the window's timeline say of their
// collective themselves (GpuRecords::collective_of_kernel). The window holds every op's placement.
std::vector<CollectiveCall> CollectivesOf(
    const MeasuredWindow& window, const HostEvents& host,
    const std::unordered_map<std::size_t, CollectiveDescription>& collective_of_kernel);

// The collectives gloo ran on the host among the ops `placements` places (every op's, or a
// segment's: OpSegments), each a "gloo:..." range, added to `calls` in the ops' order:
// CollectivesOf's where no NCCL kernel ran, before SortByStart.
void AddHostCollectives(const Timeline& timeline, const OpPlacements& placements,
                        const HostEvents& host, std::vector<CollectiveCall>& calls);

// `calls` in start order, those that start together in the order given.
void SortByStart(std::vector<CollectiveCall>& calls);

}  // namespace advisor
