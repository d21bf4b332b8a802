// What one training step computed, for the numerics check: the loss, the forward's output tensors
// and every parameter's gradient. They are read from a TrainingStep, the same step the benchmark
// times (same inputs, loss and optimizer), so the check compares what the candidate really runs.
#pragma once

#include <torch/script.h>

#include <string>
#include <vector>

#include "engine/torch/training_step.h"

namespace advisor {

struct NamedTensor {
  std::string name;     // "loss", "output", "output[1]", "grad of blocks.0.fc1.weight"
  torch::Tensor value;  // detached; undefined for a parameter the step gave no gradient
};

struct StepSnapshot {
  std::vector<NamedTensor> tensors;  // loss, outputs, then gradients in parameter order
};

// Makes the forward of `module` keep its output in an attribute, so that the step's output can be
// read after the step. Call before the first forward (executors cache their plans).
void KeepForwardOutput(torch::jit::Module& module);

// Runs one step (the first) of `step`, whose module went through KeepForwardOutput, and returns
// what it computed.
StepSnapshot CaptureStep(TrainingStep& step);

}  // namespace advisor
