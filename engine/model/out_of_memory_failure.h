// The run ended because an allocation failed: the one failure that is itself the diagnosis. Where
// it happened, what the allocator held, and what the error said; the rules' fixes come from it
// (rules/oom_*.lua, docs/memory.md "Out of memory"). RunReport::out_of_memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/finding.h"
#include "engine/model/memory.h"
#include "engine/model/training_state.h"

namespace advisor {

// The caching allocator as the error left it (CUDA; absent where the device is not a GPU).
struct AllocatorAtFailure {
  double allocated_mb = 0;       // live tensors' bytes
  double reserved_mb = 0;        // the allocator's segments
  double peak_allocated_mb = 0;  // the most allocated since the process began (or a reset)
  double device_total_mb = 0;
  std::optional<double> device_free_mb;         // what the driver said was free
  std::optional<double> largest_free_block_mb;  // the largest cached block no tensor holds
  std::optional<long long> alloc_retries;       // cudaMalloc retries after freeing the cache
  bool expandable_segments = false;             // PYTORCH_CUDA_ALLOC_CONF had them on
};

struct OutOfMemoryFailure {
  std::string message;                 // the error's first line, as torch wrote it
  std::optional<double> requested_mb;  // "Tried to allocate X" (RequestedMbOf)
  int steps_done = 0;                  // training steps completed before it
  std::string during;                  // what advisor was doing: "timing 5 steps"
  std::string path;       // the module instance running at the raise; "" where none was
  std::string path_note;  // why `path` is "" where that is known (a backward that kept its graph)
  std::string phase;      // "forward", "loss", "backward", "optimizer", "data"; "" unknown
  std::string op;         // the call that raised: its function and line of code, innermost frame
  std::optional<SourceLocation> source;  // the innermost line of the user's own code
  std::optional<AllocatorAtFailure> allocator;
  // What the autograd graphs live at the raise kept for their backward, by the instance that saved
  // it (path "" for no instance's), most first: the activations checkpointing frees.
  std::vector<MemoryShare> kept_for_backward;
  // What was live at the raise by category and instance, and its holder (LiveAtFailure).
  std::optional<MemoryPeak> live;
};

// What was live at the failure: the training state (parameters, gradients, optimizer state, as
// the probe measured them), the activations the graphs kept for backward (by instance: `path` is
// the instance keeping the most), and on CUDA the rest of what the allocator held ("other").
// None where neither the graphs nor the training state tell anything.
std::optional<MemoryPeak> LiveAtFailure(const OutOfMemoryFailure& failure,
                                        const std::optional<TrainingState>& training_state);

// The request's size in MB (MiB) from torch's message ("Tried to allocate 2.00 GiB"), in any
// version's wording; nullopt where the message names none.
std::optional<double> RequestedMbOf(const std::string& message);

}  // namespace advisor
