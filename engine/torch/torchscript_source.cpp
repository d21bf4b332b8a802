#include "engine/torch/torchscript_source.h"

#include <torch/cuda.h>
#include <torch/script.h>

#include "engine/torch/device_info.h"
#include "engine/torch/instrument.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/module_tree.h"
#include "engine/torch/profiled_window.h"
#include "engine/torch/training_step.h"
#include "engine/util/cpu_model.h"
#include "probes/cupti/gpu_probe.h"
#include "probes/ops/event_recorder.h"

namespace advisor {
namespace {

// The step the windows measure and profile: the workload's, eager where it replays a CUDA graph
// (no op inside a replay reaches the probes); the graphed step is only timed.
WorkloadSpec EagerStepOf(WorkloadSpec spec) {
  spec.cuda_graphs = false;
  return spec;
}

// TorchScript brackets a module's children from inside its forward graph; a container without
// forward (a ModuleList) has its children called from the nearest ancestor that has one.
std::string NearestForwardAncestor(const ModuleTree& modules, std::string path) {
  do {
    path = ParentPath(path);
  } while (!path.empty() && !modules.at(path).has_forward);
  return path;
}

void InstrumentEveryModule(torch::jit::Module& module) {
  Instrumenter instrumenter;
  for (const torch::jit::NameModule& named : module.named_modules()) {
    if (named.value.find_method("forward")) instrumenter.InstrumentCallsIn(named.value);
  }
}

}  // namespace

struct TorchScriptSource::Model {
  // Described and searched for sources, never instrumented (see DescribeModules).
  torch::jit::Module described;

  // A fresh copy with every instance labelled; instrumentation must come before the executors
  // first run.
  torch::jit::Module LoadLabelled(const std::string& path) const {
    torch::jit::Module module = LoadModule(path);
    AssignInstancePaths(module);
    return module;
  }
};

TorchScriptSource::TorchScriptSource(const TorchScriptSourceOptions& options,
                                     const Progress& progress)
    : options_(options),
      progress_(progress),
      spec_(ApplyOverrides(ReadWorkload(options.model_path), options.overrides)),
      eager_spec_(EagerStepOf(spec_)),
      model_(std::make_unique<Model>()) {
  if (spec_.device == "cuda" && !torch::cuda::is_available()) {
    throw WorkloadError("--device cuda: " + CudaUnavailableReason());
  }
  ApplyGlobalSettings(spec_);
  torch::jit::setGraphExecutorOptimize(options_.jit_optimize);
  if (spec_.device == "cuda") gpu_ = MakeGpuActivityProbe();

  RunInfo& run = description_.run;
  run.mode = Door::kModel;
  run.model = options_.model_path;
  run.device = spec_.device;
  run.device_name = spec_.device == "cuda" ? CudaDeviceName() : CpuModelName();
  run.torch_version = TorchVersion();
  run.advisor_version = ADVISOR_VERSION;
  run.warmup_steps = WarmupSteps();
  run.batch_size = static_cast<int>(spec_.batch_size());
  run.deterministic = spec_.deterministic;
  if (spec_.device == "cuda") {  // the settings the step runs under (ApplyGlobalSettings above)
    run.allow_tf32 = at::globalContext().allowTF32CuBLAS();
    run.cudnn_benchmark = at::globalContext().benchmarkCuDNN();
  }
  run.cuda_graphs = spec_.cuda_graphs;
  run.dtype = spec_.inputs.front().dtype;
  description_.device_limits = CudaDeviceLimits();
  if (spec_.input_stage) {
    description_.input = DataWait{0, spec_.input_stage->workers,
                                  spec_.input_stage->pin_memory && spec_.device == "cuda",
                                  std::nullopt};
  }

  progress_("loading " + options_.model_path);
  model_->described = LoadModule(options_.model_path);
  modules_ = DescribeModules(model_->described);
}

TorchScriptSource::~TorchScriptSource() = default;

TimedSteps TorchScriptSource::TimeSteps(int steps) {
  if (!baseline_step_) {
    progress_("baseline: " + std::to_string(WarmupSteps()) + " warm-up steps");
    baseline_step_ = Prepare({});
  }
  // TrainingStep::Run ends every step in a device synchronisation.
  return {RunSteps(*baseline_step_, steps, false),
          spec_.device == "cuda" ? StepTiming::kHostClockSynced : StepTiming::kHostClock};
}

RecordedWindow TorchScriptSource::Record(const WindowRequest& request) {
  std::unique_ptr<TrainingStep> step;
  switch (request.instrumentation) {
    case Instrumentation::kNone:
      // The copy that timed the baseline records its window too, then makes room for the levels'.
      if (baseline_step_) {
        step = std::move(baseline_step_);
        // Its input stage's workers refilled their queue since the timed steps: drained first,
        // or the window's first steps take ready batches and the median step waits for none
        // (busy_pipeline's profiled step read 1.1 ms against 25.8 unprofiled, its rule silent).
        RunSteps(*step, PrefetchedBatches(spec_.input_stage), false);
      } else {
        step = Prepare({});
      }
      break;
    case Instrumentation::kChildrenOf: {
      std::vector<std::string> graphs{request.parent};
      if (!request.parent.empty())
        graphs.push_back(NearestForwardAncestor(modules_, request.parent));
      step = Prepare(graphs);
      break;
    }
    case Instrumentation::kEveryModule:
      step = PrepareEveryModule();
      break;
  }
  const bool cuda = spec_.device == "cuda";
  if (cuda) ResetCudaMemoryPeaks();
  const std::optional<MemoryAtStart> at_start =
      cuda ? ReadCudaMemoryAtStart() : std::optional<MemoryAtStart>();
  RecordedWindow window;
  // The uninstrumented window measures the input stage inside too, where its batches are made.
  const bool stage_profiled = request.instrumentation == Instrumentation::kNone;
  if (stage_profiled) step->StartInputStageProfile();
  window.timeline =
      RecordWindow(*step, request.steps, request.device_activity ? gpu_.get() : nullptr,
                   request.sync_phases && cuda, /*count_page_faults=*/!cuda);
  window.timeline.memory_at_start = at_start;
  if (stage_profiled) window.input_stage = step->StopInputStageProfile();
  // Read once the probes have stopped: the copy of the losses is no op of the window.
  const TrainingStep::LossCheck losses = step->TakeLossCheck();
  window.losses = LossCheck{losses.steps, losses.non_finite};
  if (cuda) window.memory = ReadCudaMemoryStats();
  return window;
}

std::optional<SourceLocation> TorchScriptSource::SourceOf(const std::string& path,
                                                          const std::string& op) {
  return Locator()(path, op);
}

SourceLocator TorchScriptSource::Locator() const {
  // A torch::jit::Module is a handle: the copy keeps the described model alive.
  return [model = model_->described](const std::string& path,
                                     const std::string& op) -> std::optional<SourceLocation> {
    try {
      return op.empty() ? FindModuleCallSource(model, path) : FindOpSource(model, path, op);
    } catch (const std::exception&) {
      return std::nullopt;  // a group path (a container without forward) has no single source
    }
  };
}

std::vector<StepSpan> TorchScriptSource::TimeGraphedSteps(int steps) {
  std::unique_ptr<TrainingStep> step =
      Warmed(std::make_unique<TrainingStep>(model_->LoadLabelled(options_.model_path), spec_));
  return RunSteps(*step, steps, false);
}

// A labelled copy with the calls inside `graphs` instrumented, warmed up.
std::unique_ptr<TrainingStep> TorchScriptSource::Prepare(const std::vector<std::string>& graphs) {
  torch::jit::Module module = model_->LoadLabelled(options_.model_path);
  Instrumenter instrumenter;
  for (const std::string& path : graphs) instrumenter.InstrumentCallsIn(ModuleAt(module, path));
  return Warmed(std::make_unique<TrainingStep>(module, eager_spec_));
}

std::unique_ptr<TrainingStep> TorchScriptSource::PrepareEveryModule() {
  torch::jit::Module module = model_->LoadLabelled(options_.model_path);
  InstrumentEveryModule(module);
  return Warmed(std::make_unique<TrainingStep>(module, eager_spec_));
}

int TorchScriptSource::WarmupSteps() const {
  return options_.warmup_steps + PrefetchedBatches(spec_.input_stage);
}

std::unique_ptr<TrainingStep> TorchScriptSource::Warmed(std::unique_ptr<TrainingStep> step) {
  try {
    RunSteps(*step, WarmupSteps(), false);
  } catch (const StepError& error) {
    const std::string message = error.what();
    const bool out_of_memory = message.find("out of memory") != std::string::npos;
    // Before another step runs to find the module: it would change what the allocator holds.
    const std::optional<AllocatorAtFailure> allocator =
        out_of_memory && spec_.device == "cuda" ? ReadCudaAllocatorAtFailure() : std::nullopt;
    const std::string where = ModuleThatRaises();
    std::string located = where.empty() ? message : "module " + where + ": " + message;
    if (out_of_memory) located += " (batch size " + std::to_string(spec_.batch_size()) + ")";
    located = options_.model_path + ": " + located;
    if (!out_of_memory) throw StepError(located);
    OutOfMemoryFailure failure;
    failure.message = message.substr(0, message.find('\n'));
    failure.requested_mb = RequestedMbOf(message);
    failure.during = "warming up the workload's steps";
    failure.path = where;
    // The markers see forward calls only: a module left open is one whose forward raised.
    failure.phase = where.empty() ? "" : "forward";
    failure.allocator = allocator;
    throw WorkloadOutOfMemory(located, std::move(failure), description_.run);
  }
  return step;
}

std::string TorchScriptSource::ModuleThatRaises() {
  std::string where;
  try {
    torch::jit::Module module = model_->LoadLabelled(options_.model_path);
    InstrumentEveryModule(module);
    TrainingStep step(module, eager_spec_);
    EventRecorder::Get().Start();
    try {
      step.Run(0, false);
    } catch (const std::exception&) {
    }
    EventRecorder::Get().Stop();
    Timeline timeline;
    EventRecorder::Get().CollectInto(timeline);
    std::vector<ModulePath> open;
    for (const MarkerEvent& marker : timeline.markers) {
      if (marker.kind == MarkerKind::kForwardEnter) open.push_back(marker.path);
      if (marker.kind == MarkerKind::kForwardExit && !open.empty() && open.back() == marker.path) {
        open.pop_back();
      }
    }
    if (!open.empty()) where = open.back().str();
  } catch (const std::exception&) {
    // The diagnosis is best effort; the original error still stands.
  }
  return where;
}

}  // namespace advisor
