#include "engine/util/group_guardian.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <mutex>

namespace advisor {
namespace {

// More groups than advisor ever runs at once (a script, or a candidate and its helpers).
constexpr int kMaxGroups = 256;
constexpr int kGuardianInput = 3;

// Its own lock besides the registry's: EndGroupGuardian runs at exit and on an interrupt's
// thread while another thread may still register a group.
std::mutex g_mutex;
int g_write_fd = -1;     // guarded by g_mutex
pid_t g_guardian = -1;   // guarded by g_mutex
bool g_started = false;  // guarded by g_mutex; true once tried, and after EndGroupGuardian

// The guardian itself: after fork in a process with threads, so async-signal-safe calls only and
// no allocation. It keeps no descriptor of advisor's (which would hold a pipe or a lock open).
[[noreturn]] void Guard(int input) {
  setpgid(0, 0);  // a Ctrl-C at the terminal is advisor's to handle, not the guardian's
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) signal(sig, SIG_IGN);
  const int null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
  dup2(input, kGuardianInput);
  syscall(SYS_close_range, kGuardianInput + 1, ~0U, 0);
  pid_t groups[kMaxGroups];
  int count = 0;
  std::int32_t message = 0;
  while (true) {
    const ssize_t n = read(kGuardianInput, &message, sizeof message);
    if (n < 0 && errno == EINTR) continue;
    if (n != sizeof message) break;  // advisor has ended, or is ending
    if (message > 0 && count < kMaxGroups) {
      groups[count++] = message;
    } else {
      for (int i = 0; i < count; ++i) {
        if (groups[i] == -message) groups[i--] = groups[--count];
      }
    }
  }
  for (int i = 0; i < count; ++i) kill(-groups[i], SIGKILL);
  _exit(0);
}

void StartGuardian() {
  g_started = true;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t pid = fork();
  if (pid == 0) Guard(fds[0]);
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return;
  }
  g_write_fd = fds[1];
  g_guardian = pid;
  std::atexit(EndGroupGuardian);
}

void Tell(std::int32_t message) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_started) StartGuardian();
  if (g_write_fd < 0) return;
  while (write(g_write_fd, &message, sizeof message) < 0 && errno == EINTR) {
  }
}

}  // namespace

void GuardGroup(pid_t group) { Tell(group); }

void UnguardGroup(pid_t group) { Tell(-group); }

void EndGroupGuardian() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_started = true;
  if (g_write_fd < 0) return;
  close(g_write_fd);
  g_write_fd = -1;
  int status = 0;
  while (waitpid(g_guardian, &status, 0) < 0 && errno == EINTR) {
  }
  g_guardian = -1;
}

}  // namespace advisor
