// What one training step computed, for the numerics check: the loss, the forward's output tensors,
// every parameter's gradient and, where asked, every parameter's update by the optimizer. They are
// read from a TrainingStep, the same step the benchmark times (same inputs, loss and optimizer), so
// the check compares what the candidate really runs.
#pragma once

#include <torch/script.h>

#include <string>
#include <vector>

#include "engine/torch/training_step.h"

namespace advisor {

struct NamedTensor {
  std::string name;     // "loss", "output[1]", "grad of blocks.0.fc1.weight", "update of ..."
  torch::Tensor value;  // detached; undefined for a parameter the step gave no gradient
  // The smallest difference, relative to the tensor's largest magnitude, that rounding alone can
  // make: 0 for what the step computed; for an update, the rounding of the parameters it landed in
  // (see CaptureStep).
  double resolution = 0;
};

struct StepSnapshot {
  // Loss, outputs, gradients in parameter order, (if recorded) updates in parameter order, then
  // the input stage's first batches ("batch 0 input[0]", ..., "batch 3 target") where there is
  // one: a rewrite of the stage (crop-first) is held to them directly, not only through the step.
  std::vector<NamedTensor> tensors;
};

// Makes the forward of `module` keep its output in an attribute, so that the step's output can be
// read after the step. Call before the first forward (executors cache their plans).
void KeepForwardOutput(torch::jit::Module& module);

// Runs one step (the first) of `step`, whose module went through KeepForwardOutput, and returns
// what it computed, with the input stage's first batches prepared apart. With `record_updates`,
// also what the optimizer did: each parameter after the
// step minus before it. The worker asks for them where the recipe changes the optimizer's step
// (fused-optimizer, cuda-graphs); elsewhere both sides run the same optimizer code on gradients
// already compared, and an update can be far more sensitive than its gradient (AdamW divides by
// the gradient's own magnitude), so comparing it would only reject good recipes.
//
// An update is known only up to the rounding of the parameter it lands in: two steps whose updates
// differ by less than an ulp of the parameter can leave the same value, and by up to one ulp,
// different ones. Its resolution is therefore the dtype's epsilon times the parameter's largest
// magnitude over the update's largest magnitude.
StepSnapshot CaptureStep(TrainingStep& step, bool record_updates = false);

}  // namespace advisor
