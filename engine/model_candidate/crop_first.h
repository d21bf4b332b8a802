// The crop-first rewrite of a workload's input stage (docs/recipes.md, crop-first): a crop or
// resize that comes after size-preserving transforms of the stage's inputs moves before them, so
// that they run on the crop (widened by the reach of those that look at neighbours) instead of
// the whole image. The crop's bounds, drawn at random or not, are the same values: the rewrite
// moves only the transforms, which draw no random numbers (crop_site.h says which it moves).
#pragma once

#include <torch/script.h>

#include "engine/model_candidate/graph_rewrite.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// Rewrites the method `spec.input_stage.method` of `module` (its calls inlined first). With no
// site, `why_no_site` says why: no input stage, no crop after a transform, or the first reason a
// crop could not move.
RewriteOutcome ApplyCropFirst(torch::jit::Module& module, const WorkloadSpec& spec);

}  // namespace advisor
