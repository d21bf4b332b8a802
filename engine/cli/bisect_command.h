// `advisor bisect`: options, the run, and the report directory.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/cli/workload_flags.h"
#include "engine/script/script_source.h"
#include "engine/torch/bisector.h"

namespace advisor {

struct BisectCommandOptions {
  BisectSettings settings;        // what both front doors' bisections run with
  ModelOptions model;             // a model.pt (the model door)
  ScriptOptions script;           // a training command given after `--` (script mode)
  bool script_given = false;      // `--` was on the command line
  bool let_run = false;           // script mode: the script trains on once the bisection is done
  std::string out_dir = "advisor-report";
  std::vector<std::string> rule_dirs;
  WorkloadFlags workload;
  bool quiet = false;
  bool autotest = false;          // try the findings' recipes (engine/cli/autotest_step.h)
  int autotest_rounds = AbSettings{}.max_rounds;  // the most A/B rounds per candidate
  std::string autotest_budget;    // the whole autotest's wall time, e.g. "10m"; "" for no limit
  std::string save_fixed_dir;     // --save-fixed: where the verified rewrites' models go; ""
  // Script mode on several nodes: how long a node waits for the others once its bisection is
  // done (engine/script/node_exchange.h).
  int nodes_timeout_s = 600;
};

void AddBisectCommand(CLI::App& app, BisectCommandOptions& options);
int RunBisectCommand(BisectCommandOptions& options);

}  // namespace advisor
