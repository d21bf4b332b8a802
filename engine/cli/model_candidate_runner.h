// The model door's CandidateRunner: every run of a candidate or the baseline is an
// `advisor candidate` process of its own (engine/model_candidate, contract in docs/recipes.md),
// a benchmark run or, with --numerics, the numerics check.
#pragma once

#include <string>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/candidate_command.h"
#include "engine/autotest/candidate_runner.h"
#include "engine/autotest/fixed_models.h"
#include "engine/util/scratch_paths.h"

namespace advisor {

class ModelCandidateRunner : public CandidateRunner {
 public:
  // With `fixed` (--save-fixed), each rewrite's numerics run also saves the model it checked
  // (FixedModelsDir). Throws std::runtime_error when the private folder of the numerics results
  // cannot be made (predictable names in a shared one could be taken).
  ModelCandidateRunner(AdvisorCandidateOptions options, AbSettings settings,
                       const FixedModelsDir* fixed);

  CandidateCommand BenchmarkCommand(const CandidateSpec* candidate,
                                    const std::string& result_path) const override;

  // kDeclined with the process's reason when it does not apply the candidate to this model.
  NumericsVerdict CheckNumerics(const CandidateSpec& candidate) override;

 private:
  AdvisorCandidateOptions options_;
  AbSettings settings_;
  const FixedModelsDir* fixed_;
  PrivateTempDir scratch_;
  int checks_ = 0;
};

}  // namespace advisor
