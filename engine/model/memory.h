// The device's memory: the caching allocator's statistics over a window (any CUDA door), and what
// an allocator snapshot's history shows (advisor analyze snapshot.pickle, docs/memory.md): the
// peak and what was live at it, memory per module instance, live memory over time. A section of
// RunReport (engine/model/run_report.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/finding.h"

namespace advisor {

// Bytes of one kind live at the peak: a category, a line of the user's code.
struct MemoryShare {
  std::string name;
  double mb = 0;
  std::int64_t allocations = 0;
};

// The highest allocated memory and what held it.
struct MemoryPeak {
  double mb = 0;         // bytes the tensors asked for, live at once
  double time_ms = 0;    // since the history's first event (MemoryHistory::timed)
  std::string phase;     // "forward", "backward", "optimizer"; "" where it cannot be told
  std::string path;      // the module instance holding the most bytes; "" where none is named
  std::string category;  // the category holding the most bytes
  std::vector<MemoryShare> by_category;    // every category that holds bytes, most first
  std::vector<MemoryShare> by_user_frame;  // the user's lines that hold the most, most first
  // The module instances whose own allocations hold the most, most first (a bisection's window:
  // its instrumented instances).
  std::vector<MemoryShare> by_module;
  // A bisection: instances that held as much as `path` or the ancestor of it a level chose (within
  // 1 %): the same module repeated (a model's blocks at the start of the backward), where the
  // choice among them is by name and their counterparts of `path` hold alike.
  std::vector<std::string> tied_with;
  double reserved_mb = 0;  // the allocator's segments at that moment
  // The largest gap between live blocks in those segments; absent where the segments at that
  // moment cannot be told (expandable segments map and unmap pages inside them).
  std::optional<double> largest_free_block_mb;
};

// One module instance's memory, from the record_function ranges that name it.
struct ModuleMemory {
  std::string path;
  std::optional<double> kept_for_backward_mb;  // its forward's bytes still live at backward
  std::optional<double> forward_peak_mb;       // the most its forward held live at once
  std::optional<double> backward_peak_mb;      // likewise for its backward, where ranges name it
};

struct MemoryPoint {
  double time_ms = 0;
  double allocated_mb = 0;  // the highest in the stretch of history this point stands for
  double reserved_mb = 0;   // at that moment
};

// A record_function range drawn under the chart: a phase (forward, backward, optimizer) or a
// module instance, `depth` ranges deep among the modules.
struct MemorySpan {
  enum class Kind { kPhase, kModule };
  Kind kind = Kind::kModule;
  std::string label;
  int depth = 0;
  double start_ms = 0;
  double end_ms = 0;
};

// Live memory over the step of a bisection's peak, for its chart (memory.timeline): at most a few
// hundred points, each a moment's live bytes by category.
struct StepMemoryPoint {
  double time_ms = 0;      // since the step's start
  std::vector<double> mb;  // per StepMemoryTimeline::categories, at the stretch's highest moment
};

struct StepMemoryTimeline {
  std::vector<std::string> categories;  // the chart's stacked layers, bottom first
  double step_ms = 0;
  std::vector<StepMemoryPoint> points;
  // The step's phases and the instrumented instances' forward and backward calls in it; a
  // module's depth counts the instrumented instances around it (the parent's own call is 0).
  std::vector<MemorySpan> spans;
};

// An allocation the allocator could not serve.
struct OutOfMemory {
  double time_ms = 0;
  double requested_mb = 0;
  double device_free_mb = 0;  // what the device said it had free
  double allocated_mb = 0;
  double reserved_mb = 0;
};

// An allocator snapshot's history, replayed (docs/memory.md).
struct MemoryHistory {
  int device = 0;
  std::int64_t events = 0;
  bool timed = true;  // times are the entries' time_us; false: the events' indices (torch 2.0)
  std::vector<MemoryPoint> timeline;
  std::vector<MemorySpan> spans;
  std::vector<OutOfMemory> ooms;
  // The replay's allocated bytes after the last event against the snapshot's own accounting,
  // its segments' active blocks: equal where the history is whole and consistent.
  double end_replayed_mb = 0;
  double end_segments_mb = 0;
};

struct MemoryStats {
  double peak_allocated_mb = 0;
  double peak_reserved_mb = 0;
  double device_total_mb = 0;  // 0: not known (a snapshot; a trace without device properties)
  std::optional<long long> alloc_retries;  // caching allocator cudaMalloc retries (churn);
                                           // absent where not measured (a trace)
  long long num_device_allocs = 0;         // cudaMalloc calls during the window
  // From profile_memory's [memory] records (a trace): tensor allocations per step and their size.
  std::optional<double> tensor_allocs_per_step;
  std::optional<double> tensor_alloc_mb_per_step;
  // From an allocator snapshot; absent or empty where the door has none.
  std::optional<MemoryPeak> peak;
  std::vector<ModuleMemory> modules;
  std::optional<MemoryHistory> history;
  // A bisection: live memory over the step of its peak, from the window that named the holder.
  std::optional<StepMemoryTimeline> timeline;
  // A bisection's baseline window: MB per step by which its allocations live at each step's end
  // climbed, where they climbed at every step (memory kept across steps); absent otherwise.
  std::optional<double> growth_mb_per_step;
  // Where it climbs: the line of the user's code whose allocations were kept, read in labelled
  // steps; absent where none was read.
  std::optional<SourceLocation> growth_source;
};

}  // namespace advisor
