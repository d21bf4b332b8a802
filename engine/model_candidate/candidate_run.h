// The two runs of `advisor candidate` (contract in docs/recipes.md), each in a process of its own
// started by the autotester: a benchmark of the baseline or of one candidate, and the numerics
// check of a candidate against the baseline.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/workload/workload_spec.h"

namespace advisor {

struct ModelCandidateOptions {
  std::string model_path;
  std::vector<std::string> recipe_ids;  // empty: the baseline
  std::string recipes_dir;              // where the ids are looked up
  // The command-line overrides `advisor bisect` ran the workload with (device, batch size,
  // determinism), so that the baseline is the workload bisect measured.
  WorkloadOverrides overrides;
  bool jit_optimize = false;  // as `advisor bisect --jit-optimize`
  int steps = 20;             // measured
  int warmup = 5;             // run first and discarded
  std::string result_path;
  // The numerics run: also save the candidate's model, changed and before its step, to this file
  // (`advisor bisect --save-fixed` keeps the ones it verifies); "" for none.
  std::string save_fixed_path;
};

// Runs warm-up and measured steps of the baseline or the candidate and writes the result file,
// or a {"skipped": reason} file when the candidate does not apply to this model. Throws (one line)
// for a model, recipe or step that fails.
void RunCandidateBenchmark(const ModelCandidateOptions& options, std::ostream& log);

// Runs the first training step of the baseline and of the candidate, each from a fresh load with
// the same seed and inputs, compares loss, outputs and parameter gradients with the candidate's
// tolerance class, and writes a NumericsResult file (engine/autotest/candidate_result.h).
void RunCandidateNumerics(const ModelCandidateOptions& options, std::ostream& log);

}  // namespace advisor
