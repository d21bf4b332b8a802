// Live memory over a replayed history, thinned for a chart: a history of a million events is
// drawn in a few hundred points.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/memory_snapshot/snapshot_replay.h"
#include "engine/model/memory.h"

namespace advisor {

// At most `points` points (and the state before the first event, at time 0): the history's time
// cut into equal stretches, each drawn at the highest allocated memory it reached and the
// reserved memory at that moment, so that no peak is thinned away. `event_ms` is each event's
// time.
std::vector<MemoryPoint> TimelineOf(const DeviceReplay& replay, const std::vector<double>& event_ms,
                                    std::size_t points);

}  // namespace advisor
