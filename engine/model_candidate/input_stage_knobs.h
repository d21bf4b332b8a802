// The recipes' input-stage overrides (dataloader_workers, pin_memory): they change the workload's
// input_stage, so they apply only to workloads that have one (docs/workload.md).
#pragma once

#include <string>

#include "engine/autotest/recipe.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// "" when the overrides can change `spec`'s input stage (or name none); otherwise
// "not applicable: ..." with the reason.
std::string WhyInputStageKnobsDoNotApply(const RecipeOverrides& overrides,
                                         const WorkloadSpec& spec);

// Sets the input stage's workers ("physical-cores" resolved here, capped at kMaxInputWorkers) and
// pin_memory.
void ApplyInputStageKnobs(WorkloadSpec& spec, const RecipeOverrides& overrides);

}  // namespace advisor
