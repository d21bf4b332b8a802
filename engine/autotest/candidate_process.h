// One candidate process (or the baseline's) run to its result file: the command its door's
// CandidateRunner gives, with the candidate's environment, isolated and bounded (process.h), and
// the CandidateResult it wrote. Shared by the A/B rounds (ab_benchmark.h) and the candidate-only
// runs after a run that ran out of memory (fit_runs.h).
#pragma once

#include <string>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/candidate.h"
#include "engine/autotest/candidate_result.h"
#include "engine/autotest/candidate_runner.h"

namespace advisor {

struct CandidateProcessRun {
  // "" when `result` was read (or the process declined the candidate: result.skipped); else why
  // not: how the process ended with its stderr's tail, or what is wrong with its file.
  std::string failure;
  // Non-empty where the process ran out of memory: where, in one line (the probe's words in its
  // result file, else the line of its stderr that says "out of memory"). `failure` says it too.
  std::string out_of_memory;
  CandidateResult result;
};

// Runs `candidate` (the baseline where null) once, its result written to `result_path` (any
// previous file there is removed first). Never throws for anything the process does.
CandidateProcessRun RunCandidateProcess(const CandidateRunner& runner,
                                        const CandidateSpec* candidate, const AbSettings& settings,
                                        const std::string& result_path);

}  // namespace advisor
