#include "engine/util/interrupts.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <thread>

#include "engine/util/child_processes.h"
#include "engine/util/group_guardian.h"
#include "engine/util/scratch_paths.h"

namespace advisor {
namespace {

constexpr int kHandledSignals[] = {SIGINT, SIGTERM, SIGHUP};

int g_wake_fd = -1;  // the pipe's write end; set once, before the handlers are installed

void OnSignal(int signal_number) {
  const int saved_errno = errno;
  const unsigned char byte = static_cast<unsigned char>(signal_number);
  (void)!write(g_wake_fd, &byte, 1);
  errno = saved_errno;
}

// Runs the cleanup for the first signal that arrives, then dies of it.
[[noreturn]] void CleanUpOnSignal(int read_fd) {
  unsigned char byte = 0;
  while (read(read_fd, &byte, 1) != 1) {
  }
  const int signal_number = byte;
  EndChildGroups(signal_number, std::chrono::milliseconds(kChildGraceMs));
  RemoveScratchPaths();
  EndGroupGuardian();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigaction(signal_number, &default_action, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  raise(signal_number);
  _exit(128 + signal_number);  // where the signal does not kill (it cannot, once default)
}

}  // namespace

void InstallInterruptCleanup() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;  // no cleanup then, but advisor still dies of them
    g_wake_fd = fds[1];
    std::thread(CleanUpOnSignal, fds[0]).detach();
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int signal_number : kHandledSignals) sigaction(signal_number, &action, nullptr);
  });
}

void AbandonRun(int status) {
  EndChildGroups(SIGKILL, std::chrono::milliseconds(0));
  RemoveScratchPaths();
  EndGroupGuardian();
  _exit(status);
}

}  // namespace advisor
