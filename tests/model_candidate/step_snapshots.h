// One training step of a module, captured in-process the way `advisor candidate --numerics` does.
#pragma once

#include <torch/script.h>

#include "engine/model_candidate/step_capture.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/training_step.h"

namespace advisor::testing {

// Runs the first step of `module` (not run before) with `spec` and returns what it computed
// (with the optimizer's updates where `record_updates`).
inline StepSnapshot SnapshotOf(torch::jit::Module module, const WorkloadSpec& spec,
                               bool record_updates = false) {
  torch::jit::setGraphExecutorOptimize(false);  // as the worker runs by default
  KeepForwardOutput(module);
  ApplyGlobalSettings(spec);
  TrainingStep step(module, spec);
  return CaptureStep(step, record_updates);
}

inline const NamedTensor& Named(const StepSnapshot& snapshot, const std::string& name) {
  for (const NamedTensor& tensor : snapshot.tensors) {
    if (tensor.name == name) return tensor;
  }
  throw std::out_of_range("no tensor named " + name);
}

}  // namespace advisor::testing
