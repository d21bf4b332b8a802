// The file a worker process writes after its measured steps (the `--result FILE.json` of
// `advisor worker`). It comes from another process that may have crashed halfway, so it is read
// as untrusted input: anything malformed is an error naming the file and the field.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace advisor {

struct WorkerResult {
  std::vector<double> step_ms;           // measured steps only, warm-up excluded
  std::optional<double> peak_memory_mb;  // null where the device has no allocator statistics
  int samples_per_step = 0;              // the batch size the worker actually ran
  std::optional<double> loss;            // last step's loss; null when it was not finite
  std::vector<std::string> sites;        // module paths a rewrite changed
  std::string skipped;  // non-empty: the worker did not run this candidate, and why
};

class WorkerResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws WorkerResultError, e.g. "<path>: step_ms: must be a non-empty list of positive numbers".
WorkerResult ParseWorkerResult(const std::string& json_text, const std::string& source);
WorkerResult ReadWorkerResult(const std::string& path);

}  // namespace advisor
