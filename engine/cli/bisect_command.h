// `advisor bisect`: options, the run, and the report directory.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/cli/workload_flags.h"
#include "engine/torch/bisector.h"

namespace advisor {

struct BisectCommandOptions {
  BisectOptions bisect;
  std::string out_dir = "advisor-report";
  std::vector<std::string> rule_dirs;
  WorkloadFlags workload;
  bool quiet = false;
  bool autotest = false;          // try the findings' recipes (engine/cli/autotest_step.h)
  int autotest_rounds = AbSettings{}.rounds;  // A/B rounds per candidate
};

void AddBisectCommand(CLI::App& app, BisectCommandOptions& options);
int RunBisectCommand(BisectCommandOptions& options);

}  // namespace advisor
