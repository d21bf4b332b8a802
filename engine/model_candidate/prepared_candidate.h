// A candidate made ready inside the worker: its recipes loaded and merged, its workload changed,
// and a fresh module loaded with its module knobs and graph rewrites applied, all before the
// module's first forward. The process-wide knobs (ApplyProcessKnobs) are left to the caller, who
// may run a baseline first.
#pragma once

#include <torch/script.h>

#include <ostream>
#include <string>
#include <vector>

#include "engine/autotest/candidate.h"
#include "engine/model/run_report.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// The candidate `advisor candidate --recipe a,b` names.
struct WorkerCandidate {
  CandidateSpec spec;
  std::string skipped;  // non-empty: a recipe cannot be tried here (planned, other device, ...)
};

// Loads the recipes `ids` from `recipes_dir` with the autotester's loader and merges them.
// Throws std::runtime_error, one line, for an id with no loadable recipe or conflicting recipes.
WorkerCandidate LoadCandidate(const std::vector<std::string>& ids, const std::string& recipes_dir,
                              const std::string& device);

struct PreparedCandidate {
  std::string skipped;  // non-empty: the candidate does not apply to this model, and why
  WorkloadSpec spec;    // after the spec knobs
  torch::jit::Module module;
  std::vector<std::string> sites;  // module paths the rewrites changed
  std::vector<MethodChange> code_changes;  // the methods they changed, as code diffs
};

// A fresh copy of the model with `candidate` applied; the baseline when `candidate` is null.
// Writes one line per rewrite to `log`.
PreparedCandidate PrepareCandidate(const std::string& model_path, const WorkloadSpec& spec,
                                   const CandidateSpec* candidate, std::ostream& log);

}  // namespace advisor
