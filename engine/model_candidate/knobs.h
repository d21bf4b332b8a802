// Applying a knob recipe's overrides (RecipeOverrides, engine/autotest/recipe.h) inside the worker.
// They act on three things at three moments: the workload spec before the step is built
// (determinism, batch size, autocast, CUDA graphs, the foreach optimizer), the module before its
// first forward (channels-last), and LibTorch's process-wide settings right before the candidate's
// steps (threads, TF32, cuDNN benchmark, the SDPA backend), so that a numerics check can run the
// baseline first in the same process.
#pragma once

#include <torch/script.h>

#include <string>

#include "engine/autotest/recipe.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// "" when the worker can apply `overrides` to `spec` (on spec.device); otherwise why not:
// "not implemented: ..." for an override the worker has no code for, "not applicable: ..." for one
// that would change nothing here (the workload already has that setting) or that does not fit the
// workload (channels-last without a 4-D input, a CUDA setting on the CPU).
std::string WhyKnobsDoNotApply(const RecipeOverrides& overrides, const WorkloadSpec& spec);

// Determinism, batch size (`batch_scale` multiplies dim 0 of every input and the target), and the
// step options: autocast_dtype, cuda_graphs and fused_optimizer (the foreach SGD) become the
// workload's autocast, cuda_graphs and optimizer.foreach; dataloader_workers and pin_memory
// become its input stage's workers and pin_memory (engine/model_candidate/input_stage_knobs.h).
WorkloadSpec ApplySpecKnobs(WorkloadSpec spec, const RecipeOverrides& overrides);

// Channels-last: 4-D parameters are stored channels-last, and the forward converts its 4-D inputs
// on entry (a training input pipeline delivers each new batch contiguous, so converting it is part
// of every step). Call before the module's first forward.
void ApplyModuleKnobs(torch::jit::Module& module, const WorkloadSpec& spec,
                      const RecipeOverrides& overrides);

// Intra-op threads, TF32, cuDNN benchmark mode and the one SDPA backend left enabled
// (engine/torch/sdpa_backends.h), for the rest of the process.
void ApplyProcessKnobs(const RecipeOverrides& overrides);

// A recipe's thread count on this machine ("physical-cores" resolved).
int ResolveThreadCount(const ThreadCount& threads);

}  // namespace advisor
