#include "engine/util/child_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "engine/util/environment.h"
#include "engine/util/group_guardian.h"

namespace advisor {
namespace {

// The signals advisor (or a library in it) may handle, block or ignore; a child gets them back
// in their default state.
constexpr int kResetSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};

std::mutex g_mutex;
std::vector<pid_t> g_groups;  // guarded by g_mutex

void RegisterGroup(pid_t group) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_groups.push_back(group);
  GuardGroup(group);
}

std::vector<pid_t> RegisteredGroups() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_groups;
}

// execvp's search of PATH, done before fork: after it the child may only make
// async-signal-safe calls, and execvp is not one. "" when nothing executable is found.
std::string FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end == start ? "." : dirs.substr(start, end - start);
    const std::string candidate = dir + "/" + name;
    struct stat info {};
    if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return "";
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

// Blocks the signals advisor handles in the calling thread for its lifetime: a child starts with
// them blocked, so that advisor's handler can never run in it before exec.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigset_t blocked;
    sigemptyset(&blocked);
    for (int signal_number : kResetSignals) sigaddset(&blocked, signal_number);
    pthread_sigmask(SIG_BLOCK, &blocked, &previous_);
  }
  ~BlockedSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

 private:
  sigset_t previous_;
};

// Everything the child needs, prepared before fork.
struct Prepared {
  std::string program;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  std::vector<int> inherited_fds;
};

// The child between fork and exec: only async-signal-safe calls. Reports a failure as its errno
// on `error_fd` (close-on-exec, so a successful exec closes it).
[[noreturn]] void BecomeChild(const char* program, char* const* argv, char* const* envp,
                              const Prepared& prepared, pid_t parent, int error_fd) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal_number : kResetSignals) sigaction(signal_number, &default_action, nullptr);
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // advisor died before the death signal was armed
  const int targets[] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
  const int sources[] = {prepared.stdin_fd, prepared.stdout_fd, prepared.stderr_fd};
  int error = 0;
  for (int i = 0; i < 3 && error == 0; ++i) {
    if (sources[i] >= 0 && sources[i] != targets[i] && dup2(sources[i], targets[i]) < 0) {
      error = errno;
    }
  }
  for (int fd : prepared.inherited_fds) {
    if (error == 0 && fcntl(fd, F_SETFD, 0) != 0) error = errno;
  }
  if (error == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(program, argv, envp);
    error = errno;
  }
  (void)!write(error_fd, &error, sizeof error);
  _exit(127);
}

// The errno the child reported before exec, or 0 when it exec'd.
int ReadStartError(int fd) {
  int error = 0;
  ssize_t n;
  do {
    n = read(fd, &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

bool LeaderHasExited(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid;
}

}  // namespace

pid_t StartChild(const ChildSpec& spec, std::string& error) {
  if (spec.argv.empty()) {
    error = "cannot run an empty command";
    return -1;
  }
  Prepared prepared;
  prepared.program = FindProgram(spec.argv.front());
  if (prepared.program.empty()) {
    error = "cannot run " + spec.argv.front() + ": " + std::strerror(ENOENT);
    return -1;
  }
  prepared.argv = spec.argv;
  prepared.env = MergedEnvironment(spec.env);
  std::vector<char*> argv = CStrings(prepared.argv);
  std::vector<char*> envp = CStrings(prepared.env);
  prepared.stdout_fd = spec.stdout_fd;
  prepared.stderr_fd = spec.stderr_fd;
  prepared.inherited_fds = spec.inherited_fds;
  const int dev_null = spec.stdin_fd < 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
  prepared.stdin_fd = spec.stdin_fd < 0 ? dev_null : spec.stdin_fd;
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    error = "cannot run " + spec.argv.front() + ": " + std::strerror(errno);
    if (dev_null >= 0) close(dev_null);
    return -1;
  }

  pid_t pid;
  int fork_error = 0;
  {
    const BlockedSignals blocked;
    const pid_t parent = getpid();
    pid = fork();
    if (pid < 0) fork_error = errno;
    if (pid == 0) {
      BecomeChild(prepared.program.c_str(), argv.data(), envp.data(), prepared, parent,
                  error_pipe[1]);
    }
    if (pid > 0) {
      setpgid(pid, pid);  // also here: no moment in which the child is still in advisor's group
      RegisterGroup(pid);  // before an interrupt held back by `blocked` can be handled
    }
  }
  close(error_pipe[1]);
  const int start_error = pid > 0 ? ReadStartError(error_pipe[0]) : fork_error;
  close(error_pipe[0]);
  if (dev_null >= 0) close(dev_null);
  if (start_error != 0) {
    if (pid > 0) {
      ForgetChildGroup(pid);
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    error = "cannot run " + spec.argv.front() + ": " + std::strerror(start_error);
    return -1;
  }
  return pid;
}

void ForgetChildGroup(pid_t group) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_groups.erase(std::remove(g_groups.begin(), g_groups.end(), group), g_groups.end());
  UnguardGroup(group);
}

void EndChildGroups(int signal, std::chrono::milliseconds grace) {
  const std::vector<pid_t> groups = RegisteredGroups();
  for (pid_t group : groups) kill(-group, signal);
  const auto give_up = std::chrono::steady_clock::now() + grace;
  for (pid_t group : groups) {
    while (!LeaderHasExited(group) && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  for (pid_t group : groups) kill(-group, SIGKILL);
}

}  // namespace advisor
