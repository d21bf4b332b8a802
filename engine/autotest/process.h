// Runs one child process in isolation: its own process group, extra environment variables, a
// wall-clock limit after which the whole group is killed, and bounded capture of its output. A
// worker that crashes, hangs or floods its output cannot take advisor down or make it wait. It
// starts through StartChild (engine/util/child_processes.h): it dies with advisor, and an
// interrupt of advisor reaches it.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace advisor {

struct ProcessSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH when it has no '/'
  std::map<std::string, std::string> env;  // added to (or replacing in) advisor's environment
  std::chrono::milliseconds timeout{60'000};
  std::size_t stdout_limit_bytes = 1 << 20;  // the first bytes are kept
  std::size_t stderr_tail_bytes = 4096;      // the last bytes are kept
};

struct ProcessOutcome {
  bool started = false;
  std::string start_error;  // why it could not start, e.g. "No such file or directory"
  bool timed_out = false;   // killed (with its process group) at the time limit
  bool unreaped = false;    // did not exit even after SIGKILL (e.g. stuck in a driver call)
  std::optional<int> exit_code;
  std::optional<int> signal;  // the signal that ended it
  std::string stdout_text;
  bool stdout_truncated = false;
  std::string stderr_tail;
  double wall_s = 0;

  // Exited on its own with status 0.
  bool Succeeded() const { return started && !timed_out && exit_code == 0; }
  // One line: "exit status 3", "killed by signal 11 (Segmentation fault)",
  // "timed out after 2.0 s and was killed", "could not start: ...".
  std::string Describe() const;
};

// Never throws for anything the child does; returns once the child has ended or been killed.
ProcessOutcome RunProcess(const ProcessSpec& spec);

}  // namespace advisor
