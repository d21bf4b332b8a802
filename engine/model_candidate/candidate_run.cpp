#include "engine/model_candidate/candidate_run.h"

#include <torch/cuda.h>

#include <cmath>
#include <optional>
#include <stdexcept>

#include "engine/autotest/ab_stats.h"
#include "engine/autotest/candidate_result.h"
#include "engine/model_candidate/knobs.h"
#include "engine/model_candidate/numerics.h"
#include "engine/model_candidate/prepared_candidate.h"
#include "engine/model_candidate/step_capture.h"
#include "engine/torch/autocast_adapter.h"
#include "engine/torch/device_info.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/profiled_window.h"
#include "engine/torch/training_step.h"
#include "engine/window/measured_window.h"

namespace advisor {
namespace {

WorkloadSpec ReadSpec(const ModelCandidateOptions& options) {
  WorkloadSpec spec = ApplyOverrides(ReadWorkload(options.model_path), options.overrides);
  if (spec.device == "cuda" && !torch::cuda::is_available()) {
    throw WorkloadError("--device cuda: " + CudaUnavailableReason());
  }
  torch::jit::setGraphExecutorOptimize(options.jit_optimize);
  return spec;
}

std::optional<WorkerCandidate> CandidateOf(const ModelCandidateOptions& options,
                                           const WorkloadSpec& spec) {
  if (options.recipe_ids.empty()) return std::nullopt;
  return LoadCandidate(options.recipe_ids, options.recipes_dir, spec.device);
}

}  // namespace

void RunCandidateBenchmark(const ModelCandidateOptions& options, std::ostream& log) {
  const WorkloadSpec spec = ReadSpec(options);
  const std::optional<WorkerCandidate> candidate = CandidateOf(options, spec);
  CandidateResult result;
  if (candidate && !candidate->skipped.empty()) {
    result.skipped = candidate->skipped;
    WriteCandidateResult(options.result_path, result);
    return;
  }
  PreparedCandidate prepared =
      PrepareCandidate(options.model_path, spec, candidate ? &candidate->spec : nullptr, log);
  if (!prepared.skipped.empty()) {
    result.skipped = prepared.skipped;
    WriteCandidateResult(options.result_path, result);
    return;
  }

  ApplyGlobalSettings(prepared.spec);
  if (candidate) ApplyProcessKnobs(candidate->spec.overrides);
  TrainingStep step(prepared.module, prepared.spec);
  RunSteps(step, options.warmup + PrefetchedBatches(prepared.spec.input_stage), false);
  const bool cuda = step.device().is_cuda();
  if (cuda) ResetCudaMemoryPeaks();
  result.step_ms = StepMillis(RunSteps(step, options.steps, false));
  if (const std::optional<MemoryStats> memory = cuda ? ReadCudaMemoryStats() : std::nullopt) {
    result.peak_memory_mb = memory->peak_allocated_mb;
  }
  result.samples_per_step = static_cast<int>(prepared.spec.batch_size());
  // A loss that was not finite in any step, not only the last, fails the candidate.
  const double loss = step.last_loss();
  if (std::isfinite(loss) && step.TakeLossCheck().non_finite == 0) result.loss = loss;
  result.sites = prepared.sites;
  WriteCandidateResult(options.result_path, result);
  log << "[worker] " << (candidate ? candidate->spec.id : "baseline") << ": median "
      << Median(result.step_ms) << " ms over " << result.step_ms.size() << " steps\n";
}

void RunCandidateNumerics(const ModelCandidateOptions& options, std::ostream& log) {
  const WorkloadSpec spec = ReadSpec(options);
  const std::optional<WorkerCandidate> candidate = CandidateOf(options, spec);
  if (!candidate) throw std::runtime_error("--numerics: needs --recipe");
  if (!candidate->spec.preserves_semantics) {
    throw std::runtime_error("--numerics: " + candidate->spec.id +
                             " changes what the step computes; there is nothing to compare");
  }
  NumericsResult result;
  if (!candidate->skipped.empty()) {
    result.skipped = candidate->skipped;
    WriteNumericsResult(options.result_path, result);
    return;
  }
  // Both copies are loaded and changed before either runs, each before its first forward.
  PreparedCandidate baseline = PrepareCandidate(options.model_path, spec, nullptr, log);
  PreparedCandidate tried = PrepareCandidate(options.model_path, spec, &candidate->spec, log);
  if (!tried.skipped.empty()) {
    result.skipped = tried.skipped;
    WriteNumericsResult(options.result_path, result);
    return;
  }
  // Saved before the step changes its parameters and before KeepForwardOutput changes its forward.
  if (!options.save_fixed_path.empty()) {
    SaveModel(tried.module, options.model_path, options.save_fixed_path);
  }
  KeepForwardOutput(baseline.module);
  KeepForwardOutput(tried.module);

  // The optimizer's updates are compared only where the recipe changes the optimizer's step (see
  // CaptureStep): elsewhere both sides run the same optimizer on gradients compared already.
  const RecipeOverrides& overrides = candidate->spec.overrides;
  const bool changes_optimizer_step =
      overrides.fused_optimizer.has_value() || overrides.cuda_graphs.has_value();
  ApplyGlobalSettings(baseline.spec);
  TrainingStep baseline_step(baseline.module, baseline.spec);
  const StepSnapshot expected = CaptureStep(baseline_step, changes_optimizer_step);
  ApplyGlobalSettings(tried.spec);
  ApplyProcessKnobs(overrides);
  TrainingStep tried_step(tried.module, tried.spec);
  const StepSnapshot actual = CaptureStep(tried_step, changes_optimizer_step);

  // The candidate's autocast: the workload's, unless the recipe adds it (knobs never remove it).
  const std::string& autocast_name = tried.spec.autocast;
  const std::optional<torch::ScalarType> autocast =
      autocast_name.empty() ? std::nullopt : std::optional(AutocastDtypeOf(autocast_name));
  const NumericsComparison comparison =
      CompareSnapshots(expected, actual, candidate->spec.tolerance, autocast);
  result.within_tolerance = comparison.within_tolerance;
  result.numerics = comparison.numerics;
  result.worst = comparison.worst;
  result.compared = comparison.compared;
  result.sites = tried.sites;
  result.code_changes = tried.code_changes;
  WriteNumericsResult(options.result_path, result);
  log << "[worker] " << candidate->spec.id << ": numerics "
      << (comparison.within_tolerance ? "within" : "outside") << " tolerance; " << comparison.worst
      << "\n";
}

}  // namespace advisor
