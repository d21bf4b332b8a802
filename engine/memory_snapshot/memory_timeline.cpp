#include "engine/memory_snapshot/memory_timeline.h"

#include <algorithm>

namespace advisor {
namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;

MemoryPoint PointAt(double time_ms, std::int64_t allocated, std::int64_t reserved) {
  return {time_ms, allocated / kBytesPerMb, reserved / kBytesPerMb};
}

}  // namespace

std::vector<MemoryPoint> TimelineOf(const DeviceReplay& replay, const std::vector<double>& event_ms,
                                    std::size_t points) {
  std::vector<MemoryPoint> timeline;
  timeline.push_back(PointAt(0, replay.allocated_before, replay.reserved_before));
  if (event_ms.empty() || points == 0) return timeline;
  const double span = std::max(event_ms.back(), 1e-9);
  std::size_t stretch = 0, highest = 0;
  bool open = false;
  const auto close = [&] {
    timeline.push_back(
        PointAt(event_ms[highest], replay.allocated[highest], replay.reserved[highest]));
  };
  for (std::size_t i = 0; i < event_ms.size(); ++i) {
    const auto at = std::min(points - 1, static_cast<std::size_t>(event_ms[i] / span * points));
    if (open && at != stretch) {
      close();
      open = false;
    }
    if (!open || replay.allocated[i] > replay.allocated[highest]) highest = i;
    stretch = at;
    open = true;
  }
  close();
  return timeline;
}

}  // namespace advisor
