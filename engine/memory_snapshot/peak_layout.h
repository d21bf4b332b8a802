// The segments' free space at one moment of a replayed history: the largest gap between live
// blocks, the biggest request the allocator could serve then without another cudaMalloc (a gap
// cannot be shared between segments, so a fragmented cache reserves more than it holds).
#pragma once

#include <cstdint>
#include <optional>

#include "engine/memory_snapshot/snapshot.h"
#include "engine/memory_snapshot/snapshot_replay.h"

namespace advisor {

// After `event` (kBeforeHistory: before the first). The segments then are the end's less those
// the history allocated later, plus those it freed later. nullopt where they cannot be told:
// expandable segments (segment_map and segment_unmap change them from inside), or a history that
// disagrees with them (a live block outside every segment, a segment freed twice). Blocks whose
// allocator block is not in the end state count their request rounded up to 512 bytes; a block
// the allocator did not split is larger, so the gap is at most this.
std::optional<std::int64_t> LargestFreeBlockAfter(const MemorySnapshot& snapshot,
                                                  const DeviceReplay& replay, std::int64_t event);

}  // namespace advisor
