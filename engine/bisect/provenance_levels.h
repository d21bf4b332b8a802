// The bisection's levels inside a model torch.compile'd whole, from where inductor's kernels came
// from (issue #29): no marker can sit between the compiled model's instances, so instead of a
// window per level, each instance's time is its kernels' time in the baseline window, forward and
// backward (engine/analysis/compiled_kernels.h: a kernel fused across instances split among them
// in proportion to its nodes, and counted as shared), and each level is decided by the policy of
// the eager levels (engine/bisect/bisect_policy.h) from those times, step by step. The
// compilation measured is the script's own. Where the attribution covers less than
// kProvenanceCoverage of the compiled time, the levels are measured in windows as before, which a
// script's probe arranges by regional compilation (docs/script-mode.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/compiled_provenance.h"
#include "engine/bisect/bisect_policy.h"
#include "engine/model/compiled_kernels.h"
#include "engine/model/localisation.h"
#include "engine/timeline/timeline.h"
#include "engine/window/module_info.h"

namespace advisor {

// The share of the baseline's compiled time that must be given to instances of the model's tree
// for its levels to be taken from the attribution: below it, a fifth of the compiled work would
// be in no instance, and a level could pass over the child it belongs to. The compiled seed ViT on
// the H200 had 96.4 % attributed, its deterministic scatter the rest; the CPU MLP 97.9 %.
inline constexpr double kProvenanceCoverage = 0.8;

// The baseline window's compiled work by module instance, whole and step by step.
struct CompiledAttribution {
  // The compiled module's path in the tree ("" the root), which the tables' instance paths are
  // relative to; nullopt where the tree holds no single module compiled whole.
  std::optional<std::string> compiled;
  CompiledKernelTime window;              // the report's compiled_kernels
  std::vector<CompiledKernelTime> steps;  // one a step of the window, in order
  // The window's, by instance and kernel: each entry's `instance` is KernelKey's.
  CompiledKernelTime by_kernel;
};

// The module compiled whole (ModuleInfo::compiled) at or above `path`; nullopt where none is.
std::optional<std::string> CompiledModuleAround(const ModuleTree& modules, const std::string& path);

// Attributes `baseline`'s compiled work with the tables the door recorded
// (AttributeCompiledKernels) in the window, in each step, and by kernel; `modules` says which
// module was compiled whole.
CompiledAttribution AttributeBaseline(const Timeline& baseline,
                                      const std::vector<CompiledGraphSources>& graphs,
                                      const ModuleTree& modules);

// Why the levels inside the compiled model cannot be taken from `attribution` (one clause for a
// person: "provenance gave 62% of the compiled time to the model's instances, below the 80%
// bar"); "" where they can.
std::string ProvenanceShortfall(const CompiledAttribution& attribution, const ModuleTree& modules);

// The share of the compiled time given to instances that the tree holds.
double CoveredShare(const CompiledAttribution& attribution, const ModuleTree& modules);

// The level of `parent`'s children (a container's members in its place, as a window brackets
// them) from the attribution: each child's forward and backward in ms per step, over the window
// or in one step of it; `step_ms` the baseline's steps' (the excess threshold's yardstick). A
// child to which no compiled work was attributed ran none: it is left out, as a window leaves out
// a module that did not run.
LevelInput ProvenanceLevel(const CompiledAttribution& attribution, const ModuleTree& modules,
                           const std::string& parent, const std::vector<double>& step_ms,
                           std::optional<int> step = std::nullopt);

// The report's row of a level decided from ProvenanceLevel: the candidates' forward and backward
// are their compiled work per step (GPU kernel time where the attribution's work is kernels, and
// then gpu_ms their sum).
BisectLevel ProvenanceReportLevel(int depth, const std::string& parent,
                                  const LevelDecision& decision, bool device, bool reused);

// The hot spot at `path`: its hottest kernel (or extern ATen op) in `phase` (kOutside: the
// phase of its hottest kernel), with the ATen ops a generated kernel fused, its time per step and
// share of the mean step `step_ms`, and the instance's own top kernels.
Hotspot ProvenanceHotspot(const CompiledAttribution& attribution, const std::string& path,
                          Phase phase, double step_ms);

// The ATen ops inductor's name of a generated kernel lists ("triton_red_fused_native_layer_norm_1"
// fused "native_layer_norm"; "cpp_fused_add_gelu_0" "add_gelu"), as it lists them: an op's name
// holds underscores too, so they are not split; "" for another name (an extern "aten::mm").
std::string FusedOps(const std::string& kernel);

}  // namespace advisor
