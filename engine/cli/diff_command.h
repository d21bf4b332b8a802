// `advisor diff BEFORE AFTER`: two runs compared (docs/diff.md). Each side is a report folder, its
// report.json, or a torch.profiler trace read as `advisor analyze` reads it. `advisor diff RUN
// --ranks A B`: two ranks of one job's report.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace advisor {

struct DiffCommandOptions {
  std::string before;
  std::string after;       // "" with ranks
  std::vector<int> ranks;  // none, or the two ranks of `before` to compare
  std::string out_dir = "advisor-diff";
  std::vector<std::string> rule_dirs;  // for a side that is a trace, as analyze's --rules
  bool quiet = false;
};

void AddDiffCommand(CLI::App& app, DiffCommandOptions& options);
int RunDiffCommand(const DiffCommandOptions& options);

}  // namespace advisor
