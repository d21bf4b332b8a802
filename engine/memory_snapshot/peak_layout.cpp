#include "engine/memory_snapshot/peak_layout.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace advisor {

std::optional<std::int64_t> LargestFreeBlockAfter(const MemorySnapshot& snapshot,
                                                  const DeviceReplay& replay, std::int64_t event) {
  std::map<std::uint64_t, std::int64_t> segments;  // address -> size
  for (const SnapshotSegment& segment : snapshot.segments) {
    if (segment.device != static_cast<std::int64_t>(replay.device)) continue;
    if (segment.expandable) return std::nullopt;
    segments[segment.address] = segment.total_size;
  }
  const std::vector<TraceEntry>& entries = snapshot.device_traces[replay.device];
  for (auto i = static_cast<std::int64_t>(entries.size()) - 1; i > event; --i) {
    const TraceEntry& entry = entries[static_cast<std::size_t>(i)];
    switch (entry.action) {
      case TraceAction::kSegmentMap:
      case TraceAction::kSegmentUnmap:
        return std::nullopt;
      case TraceAction::kSegmentAlloc:
        if (segments.erase(entry.addr) == 0) return std::nullopt;
        break;
      case TraceAction::kSegmentFree:
        if (!segments.emplace(entry.addr, entry.size).second) return std::nullopt;
        break;
      default:
        break;
    }
  }

  std::vector<std::pair<std::uint64_t, std::int64_t>> blocks;  // address, block size
  for (const ReplayedAllocation& allocation : replay.allocations) {
    if (allocation.LiveAfter(event)) blocks.emplace_back(allocation.address, allocation.block_size);
  }
  std::sort(blocks.begin(), blocks.end());
  std::int64_t largest = 0;
  auto block = blocks.begin();
  for (const auto& [address, size] : segments) {
    const std::uint64_t end = address + static_cast<std::uint64_t>(size);
    if (block != blocks.end() && block->first < address) return std::nullopt;
    std::uint64_t free_from = address;
    for (; block != blocks.end() && block->first < end; ++block) {
      if (block->first > free_from) {
        largest = std::max(largest, static_cast<std::int64_t>(block->first - free_from));
      }
      free_from = std::max(free_from, block->first + static_cast<std::uint64_t>(block->second));
    }
    if (end > free_from) largest = std::max(largest, static_cast<std::int64_t>(end - free_from));
  }
  if (block != blocks.end()) return std::nullopt;
  return largest;
}

}  // namespace advisor
