// `advisor analyze PATH...`: the analysis and rules of `advisor bisect` on torch.profiler traces
// people already have, one per rank (docs/analyze.md), or the memory section of an allocator
// snapshot (snapshot.pickle, docs/memory.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace advisor {

struct AnalyzeCommandOptions {
  std::vector<std::string> paths;  // trace files, folders of one trace per rank, or a snapshot
  std::string out_dir = "advisor-report";
  std::vector<std::string> rule_dirs;
  int threads = 0;  // reader threads; 0: every core this process may use
  bool quiet = false;
  bool verbose = false;  // each stage's time and the memory held after it
  // The probe's kernel provenance of the traced run's compiled model
  // (scripts/record_compiled_provenance.py's provenance.json); "" none.
  std::string compiled_provenance;
};

void AddAnalyzeCommand(CLI::App& app, AnalyzeCommandOptions& options);
int RunAnalyzeCommand(const AnalyzeCommandOptions& options);

}  // namespace advisor
