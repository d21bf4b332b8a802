// What the record_function ranges recorded with a snapshot (external_annotations, torch 2.5+
// with global_record_annotations=True) say about each event of a device's history: the phase it
// happened in and the module instance innermost around it.
//
// A range is read by its name:
//  - a phase where a word of it is "optimizer" (torch's own "Optimizer.step#Adam.step"),
//    "backward" or "forward" ("## forward ##", "DistributedDataParallel.forward"), words being
//    split at anything not a letter or digit;
//  - otherwise a module instance where the name is a dotted path ("encoder", "blocks.3.attn");
//    nested module ranges spell their path from their parents' ("encoder" > "attn" is
//    encoder.attn), and a name that already spells its parent's path and more is taken whole;
//  - anything else ("ProfilerStep#3", "data loading") is neither.
// Ranges carry no thread, so ranges of the autograd thread and the main thread interleave: an END
// closes the latest open range of its name. Events and ranges are ordered by time_us; a range
// that starts at an event's microsecond holds it, one that ends at it holds it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/memory_snapshot/snapshot.h"
#include "engine/model/memory.h"

namespace advisor {

// The phase an allocation was made in, as its ranges or frames tell it (engine/timeline's Phase
// is a step's stretch on the host clock, which a snapshot does not have).
enum class MemoryPhase : std::uint8_t { kNone, kForward, kBackward, kOptimizer };

// "forward", "backward", "optimizer"; "" for kNone.
const char* MemoryPhaseName(MemoryPhase phase);

// A range's kind by its name, as above.
enum class RangeKind { kOther, kPhase, kModule };
RangeKind KindOfRange(const std::string& name, MemoryPhase* phase);

struct EventContext {
  bool annotated = false;           // some range of this device was read
  std::vector<MemoryPhase> phase;   // per event
  std::vector<std::uint32_t> path;  // per event: index into paths; 0 is "" (no module)
  std::vector<std::string> paths;
  // The ranges as the chart draws them, times in µs as the snapshot has them.
  struct Span {
    MemorySpan::Kind kind = MemorySpan::Kind::kModule;
    std::uint32_t path = 0;                  // kModule
    MemoryPhase phase = MemoryPhase::kNone;  // kPhase
    int depth = 0;
    std::int64_t start_us = 0;
    std::int64_t end_us = 0;
  };
  std::vector<Span> spans;
};

// The ranges of `device` (and those that name no device) against its history. Without times
// (torch 2.0's entries) nothing can be placed: annotated stays false. Throws SnapshotError where
// more than 128 ranges are open at once, or the module paths take more than 256 MiB (the bounds
// of a trace's module ranges).
EventContext ContextOfEvents(const MemorySnapshot& snapshot, std::size_t device);

}  // namespace advisor
