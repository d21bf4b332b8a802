// The model.pt front door's WindowSource: a TorchScript model with its workload inside. Each
// window runs on a fresh copy of the model whose graphs carry marker ops around the requested
// modules' calls, warmed up before it records (executors compile during the first steps).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/bisect/bisection.h"
#include "engine/window/window_source.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

class TrainingStep;
class GpuActivityProbe;

// The workload ran out of memory: what() is the one line a failing step gets, and the failure
// and the run carry what the report of it needs (docs/memory.md, "Out of memory").
class WorkloadOutOfMemory : public std::runtime_error {
 public:
  WorkloadOutOfMemory(const std::string& what, OutOfMemoryFailure failure, RunInfo run)
      : std::runtime_error(what), failure(std::move(failure)), run(std::move(run)) {}
  OutOfMemoryFailure failure;
  RunInfo run;
};

struct TorchScriptSourceOptions {
  std::string model_path;
  WorkloadOverrides overrides;
  int warmup_steps = 0;  // discarded before each window (BisectSettings::warmup_steps)
  bool jit_optimize = false;
};

class TorchScriptSource : public WindowSource {
 public:
  // Loads the archive and its workload and applies the workload's global settings. Throws
  // ModelError or WorkloadError (one line each) for input advisor cannot use.
  TorchScriptSource(const TorchScriptSourceOptions& options, const Progress& progress);
  ~TorchScriptSource() override;

  const SourceDescription& Describe() const override { return description_; }
  const ModuleTree& Modules() const override { return modules_; }
  TimedSteps TimeSteps(int steps) override;
  RecordedWindow Record(const WindowRequest& request) override;
  std::optional<SourceLocation> SourceOf(const std::string& path, const std::string& op) override;
  // SourceOf's lookup, usable after this source is gone (it keeps the model's description); with
  // op "", the line that calls the module.
  SourceLocator Locator() const;

  // With cuda_graphs: `steps` unprofiled steps replayed as a CUDA graph, on a copy of their own,
  // released before the eager windows load theirs. The windows always run the step eagerly.
  std::vector<StepSpan> TimeGraphedSteps(int steps);

 private:
  struct Model;  // the loaded TorchScript module, kept out of this header
  std::unique_ptr<TrainingStep> Prepare(const std::vector<std::string>& graphs);
  std::unique_ptr<TrainingStep> PrepareEveryModule();
  // options_.warmup_steps, and the batches input-stage workers prefetch (docs/workload.md).
  int WarmupSteps() const;
  // Warms `step` up; a step that fails throws StepError naming the module it raised in, or
  // WorkloadOutOfMemory where it ran out of memory.
  std::unique_ptr<TrainingStep> Warmed(std::unique_ptr<TrainingStep> step);
  // The module a failing step raises in: the innermost one entered and not left; "" if none.
  std::string ModuleThatRaises();

  TorchScriptSourceOptions options_;
  const Progress& progress_;
  WorkloadSpec spec_;
  WorkloadSpec eager_spec_;  // what the windows run: spec_ without CUDA graphs
  std::unique_ptr<Model> model_;
  ModuleTree modules_;
  SourceDescription description_;
  std::unique_ptr<GpuActivityProbe> gpu_;
  // The uninstrumented copy that timed the baseline's steps, kept for its profiled window.
  std::unique_ptr<TrainingStep> baseline_step_;
};

}  // namespace advisor
