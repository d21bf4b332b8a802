// The input-stage suites' models (make_input_stage_models.py), exported once per test binary with
// the Python that has torch (ADVISOR_PYTHON).
#pragma once

#include <string>

namespace advisor::testing {

struct StageModelFiles {
  std::string staged;      // prepare_batch flips, adds noise and standardises; 0 workers
  std::string masked;      // prepare_batch dilates a float mask (self.dilate) and crops it
  std::string no_method;   // the workload names "prepare", which the model lacks
  std::string one_output;  // prepare_batch returns a Tensor
  std::string rand_like;   // prepare_batch calls torch.rand_like
};

// Exports on first use into a folder removed when the test binary exits; throws when the export
// (which also checks advisor_export.py's refusals) fails.
const StageModelFiles& StageModels();

}  // namespace advisor::testing
