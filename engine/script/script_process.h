// The user's training command, run by `advisor bisect -- COMMAND` through StartChild
// (engine/util/child_processes.h): in a process group of its own (so that advisor can end it and
// every process it started, DataLoader workers included), dying with advisor, ended by advisor's
// interrupt handler (a Ctrl-C), its stdout and stderr passed through.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace advisor {

class ScriptProcess {
 public:
  // Starts argv (argv[0] looked up in PATH) with `env` added to advisor's environment. Throws
  // std::runtime_error (one line) when it cannot start. Call it from the main thread: the
  // child's death signal follows the thread that started it.
  ScriptProcess(const std::vector<std::string>& argv,
                const std::map<std::string, std::string>& env);
  // Ends the process group if it still runs.
  ~ScriptProcess();
  ScriptProcess(const ScriptProcess&) = delete;
  ScriptProcess& operator=(const ScriptProcess&) = delete;

  pid_t pid() const { return pid_; }

  // The exit status once the command has ended (reaped without waiting); nullopt while it runs.
  // A command killed by a signal reads 128 + the signal.
  std::optional<int> Poll();
  // Waits for the command to end on its own (--let-run) and returns its status.
  int Wait();
  // Ends the command and everything in its process group: SIGTERM, then SIGKILL after `grace`.
  void Terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));
  // One line: "exit status 1", "killed by signal 9".
  std::string DescribeExit() const;

 private:
  // The command has exited (or must go now): kills its group, unregisters it and reaps it.
  void Reap();

  pid_t pid_ = -1;
  std::optional<int> status_;  // raw wait status once reaped
};

}  // namespace advisor
