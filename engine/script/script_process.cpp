#include "engine/script/script_process.h"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "engine/util/child_processes.h"

namespace advisor {
namespace {

// Whether the command has exited, without reaping it: while it is a zombie its pid still names
// its process group, so killing the group cannot hit an unrelated process that reused the id.
bool HasExited(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid;
}

}  // namespace

// StartChild (engine/util/child_processes.h): a process group of its own, dying with advisor,
// registered so that a Ctrl-C forwarded by advisor's interrupt handler ends it.
ScriptProcess::ScriptProcess(const std::vector<std::string>& argv,
                             const std::map<std::string, std::string>& env) {
  if (argv.empty()) throw std::runtime_error("no command to run");
  ChildSpec spec;
  spec.argv = argv;
  spec.env = env;
  std::string error;
  pid_ = StartChild(spec, error);
  if (pid_ < 0) throw std::runtime_error(error);
}

ScriptProcess::~ScriptProcess() {
  if (pid_ > 0 && !status_) Terminate();
}

void ScriptProcess::Reap() {
  // What the script started and left behind (DataLoader workers) goes too, before the pid is
  // released.
  kill(-pid_, SIGKILL);
  ForgetChildGroup(pid_);
  int status = 0;
  pid_t reaped;
  do {
    reaped = waitpid(pid_, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  // ECHILD: reaped behind our back (SIGCHLD ignored); it ended, how is unknown.
  status_ = reaped == pid_ ? status : (1 << 8);
}

std::optional<int> ScriptProcess::Poll() {
  if (!status_ && HasExited(pid_)) Reap();
  if (!status_) return std::nullopt;
  return WIFEXITED(*status_) ? WEXITSTATUS(*status_) : 128 + WTERMSIG(*status_);
}

int ScriptProcess::Wait() {
  while (!status_) {
    siginfo_t info{};
    const int waited = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT);
    if (waited == 0 || errno != EINTR) Reap();
  }
  return Poll().value_or(1);
}

void ScriptProcess::Terminate(std::chrono::milliseconds grace) {
  if (status_) return;
  kill(-pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!Poll() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!status_) Reap();  // kills the group and waits
}

std::string ScriptProcess::DescribeExit() const {
  if (!status_) return "still running";
  if (WIFEXITED(*status_)) return "exit status " + std::to_string(WEXITSTATUS(*status_));
  return std::string("killed by signal ") + std::to_string(WTERMSIG(*status_)) + " (" +
         strsignal(WTERMSIG(*status_)) + ")";
}

}  // namespace advisor
