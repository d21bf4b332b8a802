// Memory in a bisection's window: the allocations and frees the probe recorded (MemoryEvent),
// each attributed to the module instance whose forward or backward made it (the innermost
// instrumented one open on the allocating thread) and to the step's phase, replayed to the step's
// peak. docs/memory.md ("The bisection's memory") says how and what it cannot see.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/memory.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// Bytes known live through the whole window that no window allocation shows: allocated before it
// (the door measures them).
struct ResidentMemory {
  double parameter_mb = 0;
  double optimizer_state_mb = 0;
};

struct WindowMemory {
  // The window's highest step peak: mb counts the resident bytes and the window's allocations
  // live then; by_category "parameters", "optimizer_state" (resident, or allocated in the
  // optimizer and live at the step's end), "activations" (allocated in the forward or the loss,
  // live when the backward began), "gradients" (allocated in the backward, live at its end),
  // "temporaries" (freed before those), "other" (the data phase, outside the step); by_module
  // the instances' own allocations live then, path the one holding most.
  std::optional<MemoryPeak> peak;
  // Per instrumented instance, in the step of the peak: its own allocations, not those of an
  // instrumented instance inside it.
  std::vector<ModuleMemory> modules;
  // The window's own allocations live at each step's end, in step order: what climbs here from
  // step to step was kept across steps.
  std::vector<double> step_end_mb;
  // Live memory over the step of the peak, by category, with the step's phases and the
  // instances' calls: the chart's.
  std::optional<StepMemoryTimeline> timeline;
  // Of the allocations kept across steps (made in a step before the last, live at the window's
  // end): the phase that made most of their bytes, and the instrumented instance that did, if any.
  Phase kept_phase = Phase::kOutside;
  std::string kept_owner;
};

// An allocation kept across steps: made in a step before the window's last and still live at the
// window's end (what makes memory climb from step to step).
struct KeptAllocation {
  std::int64_t bytes = 0;
  TimeNs time_ns = 0;
  ThreadId thread = 0;
  Phase phase = Phase::kOutside;
  std::string owner;  // the innermost instrumented instance open then; "" where none
};

std::vector<KeptAllocation> KeptAcrossSteps(const Timeline& timeline);

// The chart's bounds: a stretch of the step per point (each drawn at its highest moment, so no
// peak is thinned away), and the widest spans.
inline constexpr std::size_t kStepTimelinePoints = 400;
inline constexpr std::size_t kStepTimelineSpans = 600;

// Nothing where the window recorded no allocation. Of several devices, the one whose allocations
// were largest (a CUDA run's device, not its host staging).
WindowMemory AttributeWindowMemory(const Timeline& timeline, const ResidentMemory& resident);

}  // namespace advisor
