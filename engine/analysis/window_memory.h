// Memory in a bisection's window: the allocations and frees the probe recorded (MemoryEvent),
// each attributed to the module instance whose forward or backward made it (the innermost
// instrumented one open on the allocating thread) and to the step's phase, replayed to the step's
// peak. docs/memory.md ("The bisection's memory") says how and what it cannot see.
#pragma once

#include <optional>
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
};

// Nothing where the window recorded no allocation. Of several devices, the one whose allocations
// were largest (a CUDA run's device, not its host staging).
WindowMemory AttributeWindowMemory(const Timeline& timeline, const ResidentMemory& resident);

}  // namespace advisor
