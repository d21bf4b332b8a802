// How the autotest starts a candidate process: its command line and environment, as a door's
// CandidateRunner builds it (engine/autotest/candidate_runner.h), and the command line of the
// model door's `advisor candidate`, kept here with its contract so that tests need no LibTorch.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/autotest/candidate.h"

namespace advisor {

struct CandidateCommand {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // extra environment variables for this run
};

struct AdvisorCandidateOptions {
  std::string advisor_path;  // the advisor binary, e.g. from /proc/self/exe
  std::string model;
  std::string device;  // "cpu" or "cuda"
  int steps = 20;      // measured steps per run
  int warmup = 5;      // steps run first and discarded
  // Appended to every run, so that each runs the workload as the bisection did (e.g.
  // --step-timeout, --batch-size).
  std::vector<std::string> workload_arguments;
};

// The run of `advisor candidate` (contract in docs/recipes.md) that writes its result to
// `result_path`:
//   advisor candidate MODEL [--recipe ID[,ID...]] --steps N --warmup W --device D --result FILE
// The baseline (null `candidate`) gets no --recipe; a combination passes its recipe ids joined
// by ','. The candidate's env is left to the caller.
CandidateCommand AdvisorCandidateCommand(const AdvisorCandidateOptions& options,
                                         const CandidateSpec* candidate,
                                         const std::string& result_path);

}  // namespace advisor
