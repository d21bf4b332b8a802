// The script front door's WindowSource: the user's unmodified training command, run with advisor's
// probe inside (probes/python), each window a stretch of the script's own steps during this one
// run. advisor asks, the probe measures at the next step boundary and answers; the script keeps
// training in between. Everything the probe sends is checked (probe_messages).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/bisect/bisection.h"
#include "engine/bisect/window_source.h"
#include "engine/script/probe_channel.h"
#include "engine/script/probe_messages.h"
#include "engine/script/script_process.h"

namespace advisor {

// The script could not be bisected: it failed, ended too early, hung, or its Python cannot carry
// the probe. what() is one line that says which, naming the script.
class ScriptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ScriptOptions {
  std::vector<std::string> command;  // as given after `--`
  int warmup_steps = 3;              // the script's steps after the first, before the baseline
  // The longest advisor waits for the script's next step (the first one included: start-up,
  // imports, the model's construction and the first batch).
  std::chrono::seconds step_timeout{600};
  std::string probe_dir;             // build/probe: the library, build_info.json, site/
};

class ScriptSource : public WindowSource {
 public:
  // Starts the command and waits until its first step is done and the probe has described the
  // model. Throws ScriptError.
  ScriptSource(const ScriptOptions& options, const Progress& progress);
  ~ScriptSource() override;  // ends the script if it still runs

  const SourceDescription& Describe() const override { return description_; }
  const ModuleTree& Modules() const override { return modules_; }
  std::vector<StepSpan> TimeSteps(int steps) override;
  RecordedWindow Record(const WindowRequest& request) override;
  std::optional<SourceLocation> SourceOf(const std::string& path, const std::string& op) override;

  // The bisection is done: ends the script and everything it started, or with `let_run` stops
  // measuring and lets the script train on alone (WaitForScript then waits for its end).
  void Finish(bool let_run);
  // The script's exit status once it has ended on its own.
  int WaitForScript();

 private:
  nlohmann::json Ask(const nlohmann::json& command, const std::string& expected_type,
                     const std::string& doing, int steps);
  nlohmann::json Await(const std::string& expected_type, const std::string& doing);
  [[noreturn]] void Stopped(const std::string& doing);
  [[noreturn]] void TimedOut(const std::string& doing);

  ScriptOptions options_;
  const Progress& progress_;
  std::string name_;  // how messages name the script: "train.py", "-m pkg.train"
  ProbeChannel channel_;
  std::unique_ptr<ScriptProcess> process_;
  std::optional<ProbeHello> hello_;
  std::optional<ProbeEnded> ended_;
  SourceDescription description_;
  ModuleTree modules_;
  int steps_done_ = 0;     // steps the script has completed, as the probe counts them
  int steps_needed_ = 0;   // the step count the command in progress needs the script to reach
  bool warmed_up_ = false;
};

// How messages name the command's script: the first argument ending in .py, `-m MODULE`, else the
// program.
std::string ScriptName(const std::vector<std::string>& command);

}  // namespace advisor
