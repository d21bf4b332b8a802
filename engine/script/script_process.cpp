#include "engine/script/script_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "engine/util/environment.h"

namespace advisor {
namespace {

// The process group advisor forwards a Ctrl-C or a kill to; one script runs at a time.
std::atomic<pid_t> g_script_group{0};

// Ctrl-C reaches advisor's process group, not the script's: advisor ends the script's whole
// group, then dies of the same signal, as it would have without a script.
void ForwardAndDie(int signal_number) {
  const pid_t group = g_script_group.load();
  if (group > 0) kill(-group, SIGKILL);
  ::signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void ForwardInterruptsTo(pid_t group) {
  g_script_group.store(group);
  struct sigaction action {};
  action.sa_handler = ForwardAndDie;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &action, nullptr);
}

void StopForwarding() {
  g_script_group.store(0);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) ::signal(signal_number, SIG_DFL);
}

}  // namespace

ScriptProcess::ScriptProcess(const std::vector<std::string>& argv,
                             const std::map<std::string, std::string>& env) {
  if (argv.empty()) throw std::runtime_error("no command to run");
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> environment = MergedEnvironment(env);
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = argv;
  std::vector<char*> args;
  for (std::string& argument : arguments) args.push_back(argument.data());
  args.push_back(nullptr);
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot start ") + argv[0] + ": " + std::strerror(errno));
  }
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    close(error_pipe[0]);
    close(error_pipe[1]);
    throw std::runtime_error(std::string("cannot start ") + argv[0] + ": " + std::strerror(errno));
  }
  if (pid_ == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // advisor died before the death signal was armed
    execvpe(args[0], args.data(), envp.data());
    const int error = errno;
    (void)!write(error_pipe[1], &error, sizeof error);
    _exit(127);
  }
  setpgid(pid_, pid_);  // also here: no window in which a signal finds the child in advisor's group
  close(error_pipe[1]);
  int exec_error = 0;
  ssize_t n;
  do {
    n = read(error_pipe[0], &exec_error, sizeof exec_error);
  } while (n < 0 && errno == EINTR);
  close(error_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_error)) {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    throw std::runtime_error(std::string("cannot run ") + argv[0] + ": " +
                             std::strerror(exec_error));
  }
  ForwardInterruptsTo(pid_);
}

ScriptProcess::~ScriptProcess() {
  if (pid_ > 0 && !status_) Terminate();
  StopForwarding();
}

void ScriptProcess::Reaped(int status) {
  status_ = status;
  kill(-pid_, SIGKILL);  // what the script started and left behind (DataLoader workers) goes too
}

std::optional<int> ScriptProcess::Poll() {
  if (!status_) {
    int status = 0;
    pid_t reaped;
    do {
      reaped = waitpid(pid_, &status, WNOHANG);
    } while (reaped < 0 && errno == EINTR);
    if (reaped == pid_) Reaped(status);
  }
  if (!status_) return std::nullopt;
  return WIFEXITED(*status_) ? WEXITSTATUS(*status_) : 128 + WTERMSIG(*status_);
}

int ScriptProcess::Wait() {
  while (!status_) {
    int status = 0;
    const pid_t reaped = waitpid(pid_, &status, 0);
    if (reaped == pid_) Reaped(status);
    if (reaped < 0 && errno != EINTR) break;
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
  if (!status_) {
    kill(-pid_, SIGKILL);
    Wait();
  }
}

std::string ScriptProcess::DescribeExit() const {
  if (!status_) return "still running";
  if (WIFEXITED(*status_)) return "exit status " + std::to_string(WEXITSTATUS(*status_));
  return std::string("killed by signal ") + std::to_string(WTERMSIG(*status_)) + " (" +
         strsignal(WTERMSIG(*status_)) + ")";
}

}  // namespace advisor
