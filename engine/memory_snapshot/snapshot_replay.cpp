#include "engine/memory_snapshot/snapshot_replay.h"

#include <algorithm>
#include <unordered_map>

#include "engine/memory_snapshot/snapshot_reader.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;

std::string Mb(std::int64_t bytes) { return Printf("%.3f MB", bytes / kBytesPerMb); }

// Sizes come from the file: a hostile one can make them add up past what an int64 holds.
[[noreturn]] void Overflow(const MemorySnapshot& snapshot) {
  throw SnapshotError(snapshot.path + ": the history's sizes add up past 2^63 bytes");
}

std::int64_t Sum(std::int64_t a, std::int64_t b, const MemorySnapshot& snapshot) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) Overflow(snapshot);
  return sum;
}

std::int64_t Difference(std::int64_t a, std::int64_t b, const MemorySnapshot& snapshot) {
  std::int64_t difference = 0;
  if (__builtin_sub_overflow(a, b, &difference)) Overflow(snapshot);
  return difference;
}

}  // namespace

std::int64_t RoundedBlockSize(std::int64_t size) {
  constexpr std::int64_t kMinBlock = 512;  // the CUDA caching allocator's kMinBlockSize
  return std::max(kMinBlock, (size + kMinBlock - 1) / kMinBlock * kMinBlock);
}

DeviceReplay ReplayDevice(const MemorySnapshot& snapshot, std::size_t device) {
  DeviceReplay replay;
  replay.device = device;
  const std::vector<TraceEntry>& entries = snapshot.device_traces[device];
  const std::size_t n = entries.size();
  replay.allocated.resize(n);
  replay.reserved.resize(n);

  // Bytes relative to the start, which is known only once the seeds are.
  std::unordered_map<std::uint64_t, std::size_t> live;  // address -> allocation
  live.reserve(1024);
  std::int64_t allocated = 0, reserved = 0, before = 0, reallocated = 0;
  const auto allocation = [&](std::uint64_t address, std::int64_t size, std::int64_t start,
                              std::int64_t end, StackId stack) {
    replay.allocations.push_back({address, size, RoundedBlockSize(size), start, end, stack});
    return replay.allocations.size() - 1;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const TraceEntry& entry = entries[i];
    const auto event = static_cast<std::int64_t>(i);
    switch (entry.action) {
      case TraceAction::kAlloc: {
        // The allocator never hands out a live address; a history that does lost the free.
        if (const auto old = live.find(entry.addr); old != live.end()) {
          replay.allocations[old->second].end = event;
          allocated = Difference(allocated, replay.allocations[old->second].size, snapshot);
          live.erase(old);
          ++reallocated;
        }
        live[entry.addr] = allocation(entry.addr, entry.size, event, kAfterHistory, entry.stack);
        allocated = Sum(allocated, entry.size, snapshot);
        break;
      }
      case TraceAction::kFreeCompleted:
        if (const auto freed = live.find(entry.addr); freed != live.end()) {
          replay.allocations[freed->second].end = event;
          allocated = Difference(allocated, replay.allocations[freed->second].size, snapshot);
          live.erase(freed);
        } else {
          // Allocated before the history began. The entry's frames are the free's, not the
          // allocation's: it keeps none.
          allocation(entry.addr, entry.size, kBeforeHistory, event, 0);
          before = Sum(before, entry.size, snapshot);
          allocated = Difference(allocated, entry.size, snapshot);
        }
        break;
      case TraceAction::kSegmentAlloc:
        ++replay.segment_allocs;
        reserved = Sum(reserved, entry.size, snapshot);
        break;
      case TraceAction::kSegmentMap:
        reserved = Sum(reserved, entry.size, snapshot);
        break;
      case TraceAction::kSegmentFree:
      case TraceAction::kSegmentUnmap:
        reserved = Difference(reserved, entry.size, snapshot);
        break;
      default:
        break;
    }
    replay.allocated[i] = allocated;
    replay.reserved[i] = reserved;
  }

  // The segments at the end: their active blocks the history did not allocate were alive before
  // it, and those it did must be the ones it leaves live.
  std::int64_t reserved_end = 0, size_mismatches = 0;
  for (const SnapshotSegment& segment : snapshot.segments) {
    if (segment.device != static_cast<std::int64_t>(device)) continue;
    reserved_end = Sum(reserved_end, segment.total_size, snapshot);
    for (const SnapshotBlock& block : segment.blocks) {
      if (block.state == BlockState::kInactive) continue;
      replay.end_segments_bytes = Sum(replay.end_segments_bytes, block.requested_size, snapshot);
      if (const auto traced = live.find(block.address); traced != live.end()) {
        ReplayedAllocation& known = replay.allocations[traced->second];
        known.block_size = block.size;
        if (known.size != block.requested_size) ++size_mismatches;
        live.erase(traced);
        continue;
      }
      const std::size_t seeded = allocation(block.address, block.requested_size, kBeforeHistory,
                                            kAfterHistory, block.stack);
      replay.allocations[seeded].block_size = block.size;
      before = Sum(before, block.requested_size, snapshot);
    }
  }

  replay.allocated_before = before;
  for (std::int64_t& bytes : replay.allocated) bytes = Sum(bytes, before, snapshot);
  replay.reserved_before = Difference(reserved_end, n > 0 ? reserved : 0, snapshot);
  for (std::int64_t& bytes : replay.reserved) bytes = Sum(bytes, replay.reserved_before, snapshot);

  replay.peak_bytes = replay.allocated_before;
  replay.peak_reserved_bytes = replay.reserved_before;
  std::int64_t lowest_reserved = replay.reserved_before;
  for (std::size_t i = 0; i < n; ++i) {
    if (replay.allocated[i] > replay.peak_bytes) {
      replay.peak_bytes = replay.allocated[i];
      replay.peak_event = static_cast<std::int64_t>(i);
    }
    replay.peak_reserved_bytes = std::max(replay.peak_reserved_bytes, replay.reserved[i]);
    lowest_reserved = std::min(lowest_reserved, replay.reserved[i]);
  }
  replay.end_replayed_bytes = replay.AllocatedAfter(static_cast<std::int64_t>(n) - 1);

  if (reallocated > 0) {
    replay.notes.push_back(
        Printf("%lld allocations of the history reuse an address it never "
               "freed: each ended the one before",
               static_cast<long long>(reallocated)));
  }
  if (!live.empty()) {
    std::int64_t bytes = 0;
    for (const auto& [address, index] : live)
      bytes = Sum(bytes, replay.allocations[index].size, snapshot);
    replay.notes.push_back(
        Printf("%zu allocations the history leaves live (%s) are not among "
               "the segments' active blocks",
               live.size(), Mb(bytes).c_str()));
  }
  if (size_mismatches > 0) {
    replay.notes.push_back(
        Printf("%lld active blocks were requested with another size than the "
               "history's alloc says",
               static_cast<long long>(size_mismatches)));
  }
  if (lowest_reserved < 0) {
    replay.notes.push_back(
        "the history's segment events free more than the segments hold: "
        "reserved memory before them is not known");
  }
  return replay;
}

}  // namespace advisor
