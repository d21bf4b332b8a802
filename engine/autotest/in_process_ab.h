// The A/B of candidates a running script can switch between steps, all measured in one run of it
// (engine/autotest/step_blocks.h explains the blocks): one process instead of two per round per
// candidate.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/candidate.h"
#include "engine/autotest/candidate_runner.h"
#include "engine/autotest/step_blocks.h"

namespace advisor {

struct InProcessOutcome {
  // By candidate id: each candidate with at least two pairs of full blocks, decided on them.
  std::map<std::string, AbResult> decided;
  // Why the others were not decided here ("the script ended after 1 pair of blocks"), or why
  // the run failed, by candidate id: the caller measures them in processes instead.
  std::map<std::string, std::string> not_decided;
};

// Runs the door's blocks command (CandidateRunner::BlocksCommand) once for `candidates`, each
// SwitchesBetweenSteps, with at most settings.max_rounds cycles, writing its result into
// `scratch_dir`, and decides each candidate on its pairs of blocks as a round of processes would
// be decided (ab_stats.h), every pair counted a round. A door without blocks, a failed run or a
// malformed result leaves every candidate in `not_decided`; nothing throws.
InProcessOutcome RunInProcessAb(const std::vector<CandidateSpec>& candidates,
                                const CandidateRunner& runner, const AbSettings& settings,
                                BlockDesign design, const std::string& scratch_dir,
                                std::ostream& progress);

}  // namespace advisor
