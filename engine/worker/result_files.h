// The files `advisor worker` writes for the autotester: the benchmark result (the contract in
// docs/recipes.md, read back by ReadWorkerResult in engine/autotest/worker_result.h) and the
// verdict of a `--numerics` run. Both are written whole or not at all (a temporary file renamed
// into place), so a worker that dies while writing leaves no half file to misread.
#pragma once

#include <string>
#include <vector>

#include "engine/autotest/worker_result.h"
#include "engine/report/report.h"

namespace advisor {

// Throws std::runtime_error naming the path when the file cannot be written.
void WriteWorkerResult(const std::string& path, const WorkerResult& result);

// What `advisor worker MODEL --recipe ID --numerics` found.
struct NumericsResult {
  std::string skipped;  // non-empty: the worker did not apply the candidate, and why
  bool within_tolerance = false;
  Numerics numerics;
  std::string worst;  // the tensor closest to (or past) its tolerance, described in words
  int compared = 0;   // tensors compared: loss, outputs, parameter gradients
  std::vector<std::string> sites;  // module paths a rewrite changed
};

void WriteNumericsResult(const std::string& path, const NumericsResult& result);

// Reads untrusted input from another process; throws WorkerResultError naming the file and field.
NumericsResult ReadNumericsResult(const std::string& path);

}  // namespace advisor
