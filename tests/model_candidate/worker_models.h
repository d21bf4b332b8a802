// The worker suites' models (make_worker_models.py), exported once per test binary with the
// Python that has torch (ADVISOR_PYTHON), and a way to run the advisor binary under test.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/autotest/process.h"

namespace advisor::testing {

struct WorkerModels {
  std::string gather;      // blocks.0.select and blocks.1.select gather tokens; `partial` too
  std::string plain;       // linear layers only
  std::string conv;        // a convolution on a 4-D input
  std::string attention;   // layers.0-2 attention by matmul-softmax-matmul; layers.3 with dropout
  std::string window;      // the demo's planted gather alone: gather-to-index about 2x faster
  std::string crop_roll;   // input stage: dilation by roll in loops, then a random crop (slices)
  std::string crop_pool;   // input stage: max-pool closing and a conv blur, then narrow
  std::string crop_mean;   // input stage: the image's mean subtracted before the crop
  std::string crop_mixed;  // input stage: roll, then max-pool, before the crop
};

// Exports on first use into a folder removed when the test binary exits; fails the test run
// (throws) when the export fails.
const WorkerModels& Models();

// Runs build/advisor with `arguments` and extra environment variables, for at most 60 s.
ProcessOutcome RunAdvisor(const std::vector<std::string>& arguments,
                          const std::map<std::string, std::string>& env = {});

}  // namespace advisor::testing
