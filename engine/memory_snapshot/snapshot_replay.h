// One device's allocator history replayed, as memory_viz and Mosaic replay it: an alloc adds its
// bytes, a free_completed removes them (a free_requested is still allocated: a stream may use
// it), an address is a new allocation each time it is allocated again. Allocations alive before
// the history's first event are seeded from what the history frees without having allocated it
// and from the segments' active blocks it never allocates. The segments at the end are the
// snapshot's own accounting: the replay's last state must equal them (DeviceReplay's end_*).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/memory_snapshot/snapshot.h"

namespace advisor {

constexpr std::int64_t kBeforeHistory = -1;
constexpr std::int64_t kAfterHistory = std::numeric_limits<std::int64_t>::max();

struct ReplayedAllocation {
  std::uint64_t address = 0;
  std::int64_t size = 0;        // bytes requested
  std::int64_t block_size = 0;  // its block: the segments' where it is there, else size in 512 B
  std::int64_t start = kBeforeHistory;  // the event that allocated it
  std::int64_t end = kAfterHistory;     // the free_completed that freed it
  StackId stack = 0;                    // where it was allocated; 0 before the history

  bool LiveAfter(std::int64_t event) const { return start <= event && event < end; }
};

struct DeviceReplay {
  std::size_t device = 0;
  std::vector<ReplayedAllocation> allocations;
  // Bytes allocated and reserved after each event of the history, and before the first.
  std::vector<std::int64_t> allocated;
  std::vector<std::int64_t> reserved;
  std::int64_t allocated_before = 0;
  std::int64_t reserved_before = 0;
  // The first event after which allocated bytes were highest (kBeforeHistory: before any).
  std::int64_t peak_event = kBeforeHistory;
  std::int64_t peak_bytes = 0;
  std::int64_t peak_reserved_bytes = 0;
  std::int64_t segment_allocs = 0;  // cudaMalloc calls in the history
  std::int64_t end_replayed_bytes = 0;
  std::int64_t end_segments_bytes = 0;  // the active blocks' requested bytes
  // Where the history and the segments disagree, one line each.
  std::vector<std::string> notes;

  std::int64_t AllocatedAfter(std::int64_t event) const {
    return event == kBeforeHistory ? allocated_before : allocated[static_cast<std::size_t>(event)];
  }
  std::int64_t ReservedAfter(std::int64_t event) const {
    return event == kBeforeHistory ? reserved_before : reserved[static_cast<std::size_t>(event)];
  }
};

// `device` indexes snapshot.device_traces. Throws SnapshotError where the history's sizes add up
// past what an int64 holds (only a hostile file's can).
DeviceReplay ReplayDevice(const MemorySnapshot& snapshot, std::size_t device);

// The allocator's block for `size` requested bytes: at least 512, in steps of 512.
std::int64_t RoundedBlockSize(std::int64_t size);

}  // namespace advisor
