#include "engine/model_candidate/input_stage_knobs.h"

#include <algorithm>

#include "engine/model_candidate/knobs.h"

namespace advisor {
namespace {

int ResolvedWorkers(const ThreadCount& workers) {
  return std::min(ResolveThreadCount(workers), kMaxInputWorkers);
}

}  // namespace

std::string WhyInputStageKnobsDoNotApply(const RecipeOverrides& overrides,
                                         const WorkloadSpec& spec) {
  if (!overrides.pin_memory && !overrides.dataloader_workers) return "";
  if (!spec.input_stage) {
    return "not applicable: the workload has no host-side input stage (\"input_stage\" in "
           "workload.json)";
  }
  if (overrides.pin_memory) {
    if (spec.device != "cuda") return "not applicable: pin_memory acts on CUDA only";
    if (*overrides.pin_memory == spec.input_stage->pin_memory) {
      return std::string("not applicable: the input stage already runs with pin_memory ") +
             (spec.input_stage->pin_memory ? "on" : "off");
    }
  }
  if (overrides.dataloader_workers) {
    const int workers = ResolvedWorkers(*overrides.dataloader_workers);
    if (workers == spec.input_stage->workers) {
      return "not applicable: the input stage already runs " + std::to_string(workers) +
             " worker(s)";
    }
  }
  return "";
}

void ApplyInputStageKnobs(WorkloadSpec& spec, const RecipeOverrides& overrides) {
  if (!spec.input_stage) return;
  if (overrides.pin_memory) spec.input_stage->pin_memory = *overrides.pin_memory;
  if (overrides.dataloader_workers) {
    spec.input_stage->workers = ResolvedWorkers(*overrides.dataloader_workers);
  }
}

}  // namespace advisor
