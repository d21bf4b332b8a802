// The report's memory section (engine/model/memory.h) from one device's replayed history: the
// peak and what was live at it, by category, by the user's line and by module instance; memory
// per module instance; the chart's timeline and ranges; the OOMs (docs/memory.md).
//
// Each allocation's category is when it was made: before the history began ("before_history":
// parameters, optimizer state and caches of earlier steps, mostly), or in the forward, backward
// or optimizer phase by the ranges open around it, else by its frames (frame_attribution.h);
// "unknown" where neither tells. Its module is the innermost module range open around it.
#pragma once

#include "engine/memory_snapshot/annotation_context.h"
#include "engine/memory_snapshot/snapshot.h"
#include "engine/memory_snapshot/snapshot_replay.h"
#include "engine/model/memory.h"

namespace advisor {

MemoryStats MemoryOfSnapshot(const MemorySnapshot& snapshot, const DeviceReplay& replay,
                             const EventContext& context);

}  // namespace advisor
