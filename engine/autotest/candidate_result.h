// The files a candidate process writes for the autotester (`advisor candidate`, the script probe's
// bench mode): the benchmark result (`--result FILE.json`, the contract in docs/recipes.md) and
// the verdict of a `--numerics` run. One place owns both schemas, writer and reader. The writer
// puts a file in place whole or not at all (a temporary file renamed), so a process that dies
// while writing leaves no half file; the reader takes the file as untrusted input from a process
// that may have crashed: anything malformed is an error naming the file and the field.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/run_report.h"

namespace advisor {

struct CandidateResult {
  std::vector<double> step_ms;           // measured steps only, warm-up excluded
  std::optional<double> peak_memory_mb;  // null where the device has no allocator statistics
  int samples_per_step = 0;              // the batch size the candidate process ran
  std::optional<double> loss;            // last step's loss; null when it was not finite
  std::vector<std::string> sites;        // module paths a rewrite changed
  std::string skipped;  // non-empty: the process did not run this candidate, and why
  // Non-empty: the process ran out of memory, and where, in one line ("in the forward of 1 at
  // train.py:34: CUDA out of memory. ..."); a script's probe writes it as the interpreter exits
  // of the error. Nothing else is in such a file.
  std::string out_of_memory;
  // Wall time of the warm-up steps, which the measured steps leave out: where a recipe compiles
  // (torch.compile), its compilation. Absent when the process does not say.
  std::optional<double> warmup_s;
  // Inductor's FX graph cache in the process; absent where it compiled nothing with inductor.
  std::optional<FxGraphCacheLookups> fx_graph_cache;
};

// What `advisor candidate MODEL --recipe ID --numerics` found.
struct NumericsResult {
  std::string skipped;  // non-empty: the process did not apply the candidate, and why
  bool within_tolerance = false;
  Numerics numerics;
  std::string worst;  // the tensor closest to (or past) its tolerance, described in words
  int compared = 0;   // tensors compared: loss, outputs, gradients, an input stage's batches
  std::vector<std::string> sites;  // module paths a rewrite changed
  std::vector<MethodChange> code_changes;  // the methods a rewrite changed, as code diffs
};

class CandidateResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throw std::runtime_error naming the path when the file cannot be written.
void WriteCandidateResult(const std::string& path, const CandidateResult& result);
void WriteNumericsResult(const std::string& path, const NumericsResult& result);

// Throw CandidateResultError, e.g. "<path>: step_ms: must be a non-empty list of positive numbers".
CandidateResult ParseCandidateResult(const std::string& json_text, const std::string& source);
CandidateResult ReadCandidateResult(const std::string& path);
NumericsResult ReadNumericsResult(const std::string& path);

}  // namespace advisor
