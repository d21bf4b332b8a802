// The script front door's WindowSource: the user's unmodified training command, run with advisor's
// probe inside (probes/python), each window a stretch of the script's own steps during this one
// run. advisor asks, the probe measures at the next step boundary and answers; the script keeps
// training in between. Everything the probe sends is checked (probe_messages). Under a launcher
// (torchrun) that starts several ranks, each rank's probe connects on its own; every command goes
// to every rank, naming the same steps, and each window is decided on the slowest rank's
// (RankWindows), so the one bisection loop runs unchanged.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/bisect/bisection.h"
#include "engine/model/compile_report.h"
#include "engine/script/loader_summary.h"
#include "engine/script/probe_channel.h"
#include "engine/script/probe_messages.h"
#include "engine/script/rank_windows.h"
#include "engine/script/script_process.h"
#include "engine/window/window_source.h"

namespace advisor {

// The script could not be bisected: it failed, ended too early, hung, or its Python cannot carry
// the probe. what() is one line that says which, naming the script.
class ScriptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The script died of torch's out-of-memory error: the one failure that is itself the
// diagnosis. Carries what advisor knows for the report; what() is the line ScriptError's would be.
class ScriptOutOfMemory : public ScriptError {
 public:
  ScriptOutOfMemory(const std::string& what, OutOfMemoryFailure failure, RunInfo run,
                    std::optional<TrainingState> training_state)
      : ScriptError(what),
        failure(std::move(failure)),
        run(std::move(run)),
        training_state(std::move(training_state)) {}
  OutOfMemoryFailure failure;
  RunInfo run;  // as far as it is known: the model's first step may not have ended
  std::optional<TrainingState> training_state;
};

struct ScriptOptions {
  std::vector<std::string> command;  // as given after `--`
  int warmup_steps = 0;              // the script's steps after the first, before the baseline
                                     // (BisectSettings::warmup_steps)
  // The longest advisor waits for the script's next step (the first one included: start-up,
  // imports, the model's construction and the first batch).
  std::chrono::seconds step_timeout{600};
  std::string probe_dir;             // build/probe: the library, build_info.json, site/
};

// Where this machine's ranks sit in their job: under a launcher of several nodes (torchrun
// --nnodes N), each node's advisor bisects its own ranks (engine/cli/node_step.h).
struct JobPlace {
  int node = 0;        // GROUP_RANK
  int nodes = 1;       // GROUP_WORLD_SIZE
  int world_size = 1;  // the job's ranks on every node
  std::string host;
};

class ScriptSource : public WindowSource {
 public:
  // Starts the command and waits until its first step is done and the probe has described the
  // model. Throws ScriptError.
  ScriptSource(const ScriptOptions& options, const Progress& progress);
  ~ScriptSource() override;  // ends the script if it still runs

  const SourceDescription& Describe() const override { return description_; }
  const ModuleTree& Modules() const override { return modules_; }
  TimedSteps TimeSteps(int steps) override;
  RecordedWindow Record(const WindowRequest& request) override;
  std::optional<SourceLocation> SourceOf(const std::string& path, const std::string& op) override;
  std::vector<LabelledSteps> RecordLabelled(const LabelScope& scope) override;

  // The bisection is done: ends the script and everything it started, or with `let_run` stops
  // measuring and lets the script train on alone (WaitForScript then waits for its end).
  void Finish(bool let_run);
  // The script's exit status once it has ended on its own.
  int WaitForScript();

  // Several ranks: each rank's step beside the others' and the straggler (RankWindows); nullopt
  // with one training process.
  std::optional<DistributedSummary> Distributed() const { return rank_windows_.Summarise(); }
  // Which rank each window was decided on; "" with one training process.
  std::string RanksNote() const { return rank_windows_.DecisionsNote(); }
  // The training loop's DataLoader and what starting its epochs cost, over every window so far
  // (the first rank's, as its training state); nullopt where no reply described one.
  std::optional<LoaderEpochs> Loader() const { return SummariseLoaderEpochs(loader_windows_); }
  // What torch's compiler did in the first rank, as its latest reply said; nullopt where torch
  // compiled nothing (or has no compiler: torch 1.x).
  const std::optional<CompileReport>& Compile() const { return compile_; }
  // This machine's ranks' windows, as a node's summary carries them.
  const RankWindows& Windows() const { return rank_windows_; }
  JobPlace Place() const;
  // The steps the script has completed, as its ranks' probes count them: each command measures
  // the steps after the next (TimeSteps(n) takes it to StepsDone() + n + 1).
  int StepsDone() const;

 private:
  // One training process's probe: the script's, or one rank's.
  struct Rank {
    std::unique_ptr<ProbeChannel> channel;
    ProbeHello hello;
    std::optional<ProbeEnded> ended;
    int steps_done = 0;  // steps it has completed, as its probe counts them
  };

  void ConnectRanks();
  // `steps_asked` steps of `scope`'s lines labelled, every rank's (RecordLabelled, SourceOf).
  std::vector<LabelledSteps> AskLabelled(const LabelScope& scope, int steps_asked);
  // Keeps what the first rank's reply to a command of `steps` measured steps says of its loader.
  void NoteLoader(const nlohmann::json& reply, std::size_t steps);
  // Keeps what the first rank's reply says torch's compiler has done so far (it only adds up).
  void NoteCompile(const nlohmann::json& reply);
  Rank Connect(const std::string& doing);
  // Sends `command` to every rank and returns each rank's reply, in the order of ranks_.
  std::vector<nlohmann::json> Ask(nlohmann::json command, const std::string& expected_type,
                                  const std::string& doing, int steps);
  nlohmann::json Await(Rank& rank, const std::string& expected_type, const std::string& doing);
  [[noreturn]] void Stopped(const std::string& doing, const Rank* rank);
  // The first rank, other than `awaited`, whose probe has closed its connection; nullptr if none.
  Rank* ClosedRank(const Rank& awaited);
  // Reads what a closed rank's probe sent before it closed: its last steps and how it ended.
  void Drain(Rank& rank);
  // Under a launcher: a rank that ended with no error while another rank had not (it still
  // trains, or failed on its way since); nullptr if none. Waits up to a second for ranks that end
  // together at the end of training to close.
  const Rank* RankThatLeftEarly();
  // The run's names and versions beyond what the probe measured: the script, its Python, advisor.
  void NameTheRun(const ProbeHello& hello, RunInfo& run) const;
  // Where `rank` died of an out-of-memory error: throws ScriptOutOfMemory with what is known.
  void ThrowIfOutOfMemory(const Rank& rank, const std::string& how, const std::string& doing);
  // "; its error is above" where the rank's probe saw an uncaught exception, else what it saw.
  std::string WhatIsAbove(const Rank* rank) const;
  [[noreturn]] void TimedOut(const std::string& doing);
  [[noreturn]] void OutOfStep(const std::string& doing, const std::runtime_error& error);
  [[noreturn]] void BadMessage(const Rank& rank, const std::string& doing,
                               const ProbeMessageError& error);
  // How messages name the script, and the rank where there are several.
  std::string Who(const Rank* rank) const;

  ScriptOptions options_;
  const Progress& progress_;
  std::string name_;  // how messages name the script: "train.py", "-m pkg.train"
  ProbeListener listener_;
  std::unique_ptr<ScriptProcess> process_;
  std::vector<Rank> ranks_;  // by rank
  RankWindows rank_windows_{{}};
  SourceDescription description_;
  ModuleTree modules_;
  int steps_needed_ = 0;   // the step count the command in progress needs the script to reach
  bool warmed_up_ = false;
  bool stage_measured_ = false;  // the baseline's window measured the input stage
  std::vector<LoaderWindow> loader_windows_;
  std::optional<CompileReport> compile_;
};

// How messages name the command's script: the first argument ending in .py, `-m MODULE`, else the
// program.
std::string ScriptName(const std::vector<std::string>& command);

}  // namespace advisor
