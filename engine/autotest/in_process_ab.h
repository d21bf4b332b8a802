// The A/B of candidates a running script can switch between steps, all measured in one run of it
// (engine/autotest/step_blocks.h explains the blocks): one process instead of two per round per
// candidate.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/autotest_budget.h"
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
  // By candidate id: the numerics verdict of each candidate that keeps the computation, checked
  // inside the run before its blocks (numerics.checked_in "process"). A candidate the run did not
  // check (the check failed, or the script ended first) has none and is not decided here; one
  // outside its tolerance is not decided either.
  std::map<std::string, NumericsVerdict> numerics;
  // The first run of blocks' wall time, start-up and compiles included: the price of the next.
  double wall_s = 0;
};

// A candidate whose interval after the first run of blocks still straddles an edge of the noise
// band gets more pairs, up to this many times the first run's in all (an interval as wide as
// 0.53x-1.61x after 3 pairs says nothing; with 12 the same spread gives a tenth of its width
// in logs: Student's t falls from 12.71 to 2.23 (n - 2 degrees of freedom, ab_stats.h) and the
// standard error halves).
inline constexpr int kWideIntervalFactor = 4;

// Runs the door's blocks command (CandidateRunner::BlocksCommand) once for `candidates`, each
// SwitchesBetweenSteps, with at most settings.max_rounds cycles, writing its result into
// `scratch_dir`, and decides each candidate on its pairs of blocks as a round of processes would
// be decided (ab_stats.h), every pair counted a round. A candidate that preserves the semantics is
// decided only once its numerics, checked inside the run, are within its tolerance. The candidates
// that run left with an interval across an edge of the noise band get a second run of their own
// with more cycles (kWideIntervalFactor), where `budget` has room for it, priced by the first run;
// their verdict's detail says how many of their pairs came from it. A door without blocks, a
// failed run or a malformed result leaves every candidate in `not_decided`; nothing throws.
InProcessOutcome RunInProcessAb(const std::vector<CandidateSpec>& candidates,
                                const CandidateRunner& runner, const AbSettings& settings,
                                BlockDesign design, const AutotestBudget& budget,
                                const std::string& scratch_dir, std::ostream& progress);

}  // namespace advisor
