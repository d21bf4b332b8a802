// A RunReport from an allocator snapshot (advisor analyze snapshot.pickle): the memory section of
// the device whose history holds the most events, what the snapshot is, what the replay could not
// square with it (data_quality), and the sections a snapshot cannot fill (absent: it holds no
// time). Findings and wall time are left to the caller, as for a trace.
#pragma once

#include "engine/memory_snapshot/snapshot.h"
#include "engine/model/run_report.h"

namespace advisor {

// Throws SnapshotError where the snapshot holds no device history at all.
RunReport ReportOfSnapshot(const MemorySnapshot& snapshot);

}  // namespace advisor
