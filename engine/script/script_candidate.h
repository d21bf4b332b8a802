// The script door's CandidateRunner: each candidate runs as the user's own command, relaunched
// with the probe in bench mode, which applies the candidate's knobs as the script starts (never
// editing its files), times the steps after a warm-up and writes the candidate result
// (engine/autotest/candidate_result). The numerics check compares the losses of the first steps
// of the baseline and the candidate, with the probe fixing the seeds before the script runs.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/candidate_runner.h"
#include "engine/script/compile_cache.h"
#include "engine/util/scratch_paths.h"

namespace advisor {

struct ScriptCandidateOptions {
  std::vector<std::string> command;  // as given after `--`
  std::string probe_dir;             // build/probe
  int warmup = 5;                    // steps run first and left out (compilation happens here)
  int steps = 20;                    // measured steps per run
  int loss_steps = 3;                // steps whose losses the numerics check compares
  // --step-timeout: the probe ends a run whose script makes no step for this long with exit
  // status 124 (the first step's wait includes start-up); 0 for none.
  std::chrono::seconds step_timeout{0};
};

// The environment that starts the probe in bench mode for one run.
std::map<std::string, std::string> ScriptBenchEnvironment(const ScriptCandidateOptions& options,
                                                          const CandidateSpec* candidate,
                                                          const std::string& result_path,
                                                          bool losses_only);

class ScriptCandidateRunner : public CandidateRunner {
 public:
  // Every run it starts (benchmarks, blocks, numerics) shares one compile cache
  // (compile_cache.h): a private folder, removed with the runner, unless the user's environment
  // names one. Throws std::runtime_error when a private folder (the losses files', the cache)
  // cannot be made.
  ScriptCandidateRunner(ScriptCandidateOptions options, AbSettings settings);

  // Where the runs' compile cache is, and which of the user's settings it kept.
  std::string SharedByRuns() const override;

  CandidateCommand BenchmarkCommand(const CandidateSpec* candidate,
                                    const std::string& result_path) const override;

  // The script once, the probe switching the candidates' knobs between its steps in blocks
  // (probes/python/site/advisor_probe/blocks.py), after options.warmup steps; before the blocks,
  // it checks the numerics of each candidate that preserves the semantics on the model's call.
  std::optional<CandidateCommand> BlocksCommand(const std::vector<CandidateSpec>& candidates,
                                                const BlockDesign& design,
                                                const std::string& result_path) const override;

  // Runs the baseline once and each candidate in losses mode, and compares the losses of the
  // first options.loss_steps steps within the candidate's tolerance.
  NumericsVerdict CheckNumerics(const CandidateSpec& candidate) override;

 private:
  // The losses of one run, or the reason there are none.
  std::vector<double> Losses(const CandidateSpec* candidate, std::string& failure) const;

  // ScriptBenchEnvironment with the compile cache's variables.
  std::map<std::string, std::string> RunEnvironment(const CandidateSpec* candidate,
                                                    const std::string& result_path,
                                                    bool losses_only) const;

  ScriptCandidateOptions options_;
  AbSettings settings_;
  PrivateTempDir scratch_;                           // the losses files
  std::optional<PrivateTempDir> compile_cache_dir_;  // none where the user names the folder
  CompileCacheSettings compile_cache_;
  bool baseline_run_ = false;
  std::vector<double> baseline_;
  std::string baseline_failure_;
};

// Compares two runs' losses step by step, relative to the larger magnitude of each pair.
NumericsVerdict CompareLosses(const std::vector<double>& baseline,
                              const std::vector<double>& candidate, ToleranceClass tolerance);

}  // namespace advisor
