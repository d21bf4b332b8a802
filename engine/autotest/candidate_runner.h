// The autotest's port to a front door: how a recipe's candidate runs against the baseline, for
// the A/B benchmark and for the numerics check. Each door implements it once (a TorchScript
// model's `advisor candidate` processes, engine/cli/model_candidate_runner.h; a script's own
// command relaunched with the probe, engine/script/script_candidate.h); the CLI makes the one its
// door needs, and the autotest (engine/autotest/autotest.h) drives it without asking which.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/autotest/candidate.h"
#include "engine/autotest/candidate_command.h"
#include "engine/autotest/step_blocks.h"
#include "engine/model/run_report.h"

namespace advisor {

// The verdict of a door's numerics check on a semantics-preserving candidate: same seed and
// inputs, the candidate compared with the baseline within its tolerance class.
struct NumericsVerdict {
  enum class Outcome {
    kWithinTolerance,
    kExceeded,
    kError,        // the check itself failed; detail says why
    kDeclined,     // the door does not apply the candidate (a rewrite with no site); detail: why
    kNotChecked,   // the door has no numerics check: the candidate is benchmarked unchecked
  };
  Outcome outcome = Outcome::kError;
  Numerics numerics;   // the measured differences and the tolerance they were held to
  std::string detail;  // e.g. "grad of blocks.3.attn.qkv.weight differs by 2.1e-2 (tolerance 1e-3)"
  std::vector<MethodChange> code_changes;  // a rewrite's changed methods, for the report
};

class CandidateRunner {
 public:
  virtual ~CandidateRunner() = default;

  // The process of one benchmark run, which writes its CandidateResult
  // (engine/autotest/candidate_result.h) to `result_path`: the baseline's when `candidate` is
  // null. The benchmark adds the candidate's env itself, so a door need not.
  virtual CandidateCommand BenchmarkCommand(const CandidateSpec* candidate,
                                            const std::string& result_path) const = 0;

  // Runs `candidate` and the baseline in processes of their own and compares them. A crash, hang
  // or malformed result is a kError verdict, never an exception.
  virtual NumericsVerdict CheckNumerics(const CandidateSpec& candidate) = 0;

  // One line for the autotest's progress on what every run this runner starts shares (a
  // script's compile cache, and the user's settings it kept); "" where there is nothing to say.
  virtual std::string SharedByRuns() const { return ""; }

  // The process that measures `candidates` (each SwitchesBetweenSteps) and the baseline in
  // blocks of steps inside one run, switching their knobs between steps as `design` says, and
  // writes a BlocksResult to `result_path` (engine/autotest/step_blocks.h); none where the door
  // cannot switch knobs inside its process.
  virtual std::optional<CandidateCommand> BlocksCommand(
      const std::vector<CandidateSpec>& /*candidates*/, const BlockDesign& /*design*/,
      const std::string& /*result_path*/) const {
    return std::nullopt;
  }
};

}  // namespace advisor
