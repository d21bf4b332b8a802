// How the A/B benchmark starts a worker process. The benchmark asks a builder for the command of
// each run, so that tests can substitute a fake worker and the CLI can pass its own options.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/autotest/candidate.h"

namespace advisor {

struct WorkerCommand {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // extra environment variables for this run
};

// Returns the command for one run that must write its result to `result_path`: the baseline when
// `candidate` is null. The benchmark adds the candidate's env itself, so a builder need not.
using WorkerCommandBuilder =
    std::function<WorkerCommand(const CandidateSpec* candidate, const std::string& result_path)>;

struct AdvisorWorkerOptions {
  std::string advisor_path;  // the advisor binary, e.g. from /proc/self/exe
  std::string model;
  std::string device;  // "cpu" or "cuda"
  int steps = 20;      // measured steps per run
  int warmup = 5;      // steps run first and discarded
};

// The builder for `advisor worker` (contract in docs/recipes.md):
//   advisor worker MODEL [--recipe ID[,ID...]] --steps N --warmup W --device D --result FILE
// The baseline gets no --recipe; a combination passes its recipe ids joined by ','.
WorkerCommandBuilder AdvisorWorkerCommandBuilder(AdvisorWorkerOptions options);

}  // namespace advisor
