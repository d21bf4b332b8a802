// The optional host-side input stage of a workload (docs/workload.md, "input_stage"): a scripted
// method of the model that turns the workload's base host tensors into each step's batch, run on
// the training thread or ahead of it in worker threads, the batch then copied to the device.
#pragma once

#include <optional>
#include <string>

#include "engine/json_input/json_field.h"

namespace advisor {

struct InputStageSpec {
  std::string method;       // a @torch.jit.export method: (inputs..., target) -> tuple, same arity
  int workers = 0;          // 0: prepared inside the step; N: N threads prepare ahead
  bool pin_memory = false;  // batches staged in pinned host memory, copied non-blocking (CUDA)
};

// Most workers a workload may ask for: a typo such as 1000 must not start a thousand threads.
inline constexpr int kMaxInputWorkers = 256;

// Batches each worker prepares ahead of the step (DataLoader's default prefetch_factor).
inline constexpr int kPrefetchPerWorker = 2;

// The batches a stage's workers prefetch: they fill the queue while the step loads and warms
// up, so a measurement that began with it full would see a step that never waits, however slow
// the stage. Warm-ups take this many steps more, to measure the steady state.
inline int PrefetchedBatches(const std::optional<InputStageSpec>& stage) {
  return stage ? stage->workers * kPrefetchPerWorker : 0;
}

// Reads the "input_stage" object; throws JsonInputError naming the file and the field.
InputStageSpec ParseInputStage(const JsonField& stage);

}  // namespace advisor
