#include "engine/cli/model_candidate_runner.h"

#include <cstdio>

#include "engine/autotest/candidate_result.h"
#include "engine/autotest/process.h"

namespace advisor {

ModelCandidateRunner::ModelCandidateRunner(AdvisorCandidateOptions options, AbSettings settings,
                                           const FixedModelsDir* fixed)
    : options_(std::move(options)),
      settings_(settings),
      fixed_(fixed),
      scratch_("advisor-numerics-") {}

CandidateCommand ModelCandidateRunner::BenchmarkCommand(const CandidateSpec* candidate,
                                                        const std::string& result_path) const {
  return AdvisorCandidateCommand(options_, candidate, result_path);
}

NumericsVerdict ModelCandidateRunner::CheckNumerics(const CandidateSpec& candidate) {
  // std::remove, not std::filesystem, as in engine/cli/autotest_step.cpp (which says why).
  const std::string result_path =
      scratch_.path() + "/numerics-" + std::to_string(checks_++) + ".json";
  CandidateCommand command = AdvisorCandidateCommand(options_, &candidate, result_path);
  command.argv.push_back("--numerics");
  if (fixed_ != nullptr && !candidate.rewrites.empty()) {
    command.argv.insert(command.argv.end(), {"--save-fixed", fixed_->StagedModel(candidate.id)});
  }
  ProcessSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  for (const auto& [name, value] : candidate.env) spec.env[name] = value;
  spec.timeout = settings_.candidate_timeout;
  spec.stderr_tail_bytes = settings_.stderr_tail_bytes;
  const ProcessOutcome outcome = RunProcess(spec);

  NumericsVerdict verdict;
  if (!outcome.Succeeded()) {
    verdict.detail = "the numerics worker " + outcome.Describe();
    if (!outcome.stderr_tail.empty()) verdict.detail += "; stderr tail:\n" + outcome.stderr_tail;
  } else {
    try {
      const NumericsResult result = ReadNumericsResult(result_path);
      if (!result.skipped.empty()) {
        verdict.outcome = NumericsVerdict::Outcome::kDeclined;
        verdict.detail = result.skipped;
      } else {
        verdict.outcome = result.within_tolerance ? NumericsVerdict::Outcome::kWithinTolerance
                                                  : NumericsVerdict::Outcome::kExceeded;
        verdict.numerics = result.numerics;
        verdict.numerics.checked_in = measured_in::kProcesses;
        verdict.detail = result.worst;
        verdict.code_changes = result.code_changes;
      }
    } catch (const CandidateResultError& error) {
      verdict.detail = error.what();
    }
  }
  std::remove(result_path.c_str());
  return verdict;
}

}  // namespace advisor
