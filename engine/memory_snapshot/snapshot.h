// A CUDA caching allocator snapshot (torch.cuda.memory._dump_snapshot) as plain data: the
// segments and their blocks at the moment it was taken (the end state), each device's trace of
// allocator events before it, the record_function ranges recorded with it, and the Python (and
// C++) frames of each, interned. snapshot_reader.h fills it from the pickle; the replay and the
// attribution read only this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace advisor {

enum class TraceAction : std::uint8_t {
  kAlloc,
  kFreeRequested,  // freed, but a stream that used it may not be done: still allocated
  kFreeCompleted,
  kSegmentAlloc,  // cudaMalloc: reserved grows
  kSegmentFree,
  kSegmentMap,  // expandable segments: pages mapped into, or out of, a segment
  kSegmentUnmap,
  kSnapshot,
  kOom,
  kOther,  // an action of a later torch: kept in place, replayed as nothing
};

enum class BlockState : std::uint8_t { kActiveAllocated, kActivePendingFree, kInactive };

struct SnapshotFrame {
  std::string filename;
  std::int64_t line = 0;
  std::string name;
};

// Index into MemorySnapshot::stacks; stack 0 is the empty one (no frames were recorded).
using StackId = std::uint32_t;

struct TraceEntry {
  TraceAction action = TraceAction::kOther;
  std::uint64_t addr = 0;  // kOom: the bytes the device had free
  std::int64_t size = 0;   // bytes requested (kOom: the request that failed)
  std::int64_t time_us = 0;
  StackId stack = 0;
};

struct SnapshotBlock {
  std::uint64_t address = 0;
  std::int64_t size = 0;            // the block, rounded up by the allocator
  std::int64_t requested_size = 0;  // what the tensor asked for
  BlockState state = BlockState::kInactive;
  StackId stack = 0;
};

struct SnapshotSegment {
  std::int64_t device = 0;
  std::uint64_t address = 0;
  std::int64_t total_size = 0;
  bool expandable = false;
  std::vector<SnapshotBlock> blocks;
};

// A record_function range's start or end (global_record_annotations=True, torch 2.5+).
struct SnapshotAnnotation {
  std::int64_t device = -1;  // -1: the entry names none
  std::string name;
  bool start = true;
  std::int64_t time_us = 0;
};

struct MemorySnapshot {
  std::string path;
  std::vector<SnapshotSegment> segments;
  std::vector<std::vector<TraceEntry>> device_traces;  // one per device, oldest event first
  std::vector<SnapshotAnnotation> annotations;
  std::vector<SnapshotFrame> frames;
  std::vector<std::vector<std::uint32_t>> stacks;  // frames' indices, innermost first
  // Every trace entry has time_us (torch 2.1+); without it the replay's clock is the event's
  // index.
  bool timed = true;
  std::uint64_t other_actions = 0;  // entries of kOther
};

}  // namespace advisor
