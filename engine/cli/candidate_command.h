// `advisor candidate`: one autotest run in a process of its own, started by `advisor bisect
// --autotest` (contract in docs/recipes.md). Not meant to be typed, but usable by hand to try a
// recipe on a model.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "engine/cli/workload_flags.h"
#include "engine/model_candidate/candidate_run.h"

namespace advisor {

struct CandidateCommandOptions {
  ModelCandidateOptions candidate;
  std::string recipes;  // "a,b": the candidate's recipe ids
  WorkloadFlags workload;
  bool numerics = false;
};

void AddCandidateCommand(CLI::App& app, CandidateCommandOptions& options);
int RunCandidateCommand(CandidateCommandOptions& options);

}  // namespace advisor
