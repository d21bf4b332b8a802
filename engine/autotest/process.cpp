#include "engine/autotest/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "engine/util/child_processes.h"

namespace advisor {
namespace {

using Clock = std::chrono::steady_clock;

// How often the loop looks at the child when its pipes are quiet.
constexpr auto kPollSlice = std::chrono::milliseconds(50);
// After the worker itself exits, how long its pipes may stay open (held by a process that left
// its process group) before advisor stops reading.
constexpr auto kDrainGrace = std::chrono::seconds(1);
// How long to wait for a SIGKILLed process to become reapable; one stuck in an uninterruptible
// driver call may never be, and advisor must not wait for it.
constexpr auto kReapGrace = std::chrono::seconds(5);

class Pipe {
 public:
  Pipe() {
    if (pipe2(fds_, O_CLOEXEC) != 0) fds_[0] = fds_[1] = -1;
  }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  bool ok() const { return fds_[0] >= 0; }
  int read_fd() const { return fds_[0]; }
  int write_fd() const { return fds_[1]; }
  void CloseRead() { Close(fds_[0]); }
  void CloseWrite() { Close(fds_[1]); }

 private:
  static void Close(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  int fds_[2] = {-1, -1};
};

// Appends what is readable now; returns false at end of file or on a read error.
template <class Sink>
bool ReadAvailable(int fd, Sink&& sink) {
  char buffer[65536];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      sink(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

// Keeps the last `limit` bytes, starting at a line where the cut allows it.
std::string Tail(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::string tail = text.substr(text.size() - limit);
  const std::size_t newline = tail.find('\n');
  if (newline != std::string::npos && newline + 1 < tail.size()) tail.erase(0, newline + 1);
  return tail;
}

// Whether the child has exited, without reaping it: while it is a zombie its pid still names its
// process group, so killing the group cannot hit an unrelated process that reused the id.
// ECHILD means the child was reaped behind our back (SIGCHLD set to SIG_IGN): it has exited.
bool HasExited(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid;
}

// Reaps the child, waiting at most kReapGrace. Returns false when it is still not reapable.
bool Reap(pid_t pid, ProcessOutcome& outcome) {
  const auto give_up = Clock::now() + kReapGrace;
  while (true) {
    int status = 0;
    const pid_t reaped = waitpid(pid, &status, WNOHANG);
    if (reaped == pid) {
      if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
      return true;
    }
    if (reaped < 0 && errno == ECHILD) return true;  // reaped behind our back: no status
    if (reaped < 0 && errno != EINTR) return false;
    if (Clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

std::string ProcessOutcome::Describe() const {
  char text[256];
  if (!started) return start_error;
  if (timed_out) {
    std::snprintf(text, sizeof text, "timed out after %.1f s and was killed%s", wall_s,
                  unreaped ? " (it had not exited 5 s after SIGKILL)" : "");
  } else if (signal) {
    std::snprintf(text, sizeof text, "killed by signal %d (%s)", *signal, strsignal(*signal));
  } else if (exit_code) {
    std::snprintf(text, sizeof text, "exit status %d", *exit_code);
  } else {
    std::snprintf(text, sizeof text, "ended without an exit status");
  }
  return text;
}

ProcessOutcome RunProcess(const ProcessSpec& spec) {
  ProcessOutcome outcome;
  const auto start = Clock::now();
  if (spec.argv.empty()) {
    outcome.start_error = "cannot run an empty command";
    return outcome;
  }
  Pipe out;
  Pipe err;
  if (!out.ok() || !err.ok()) {
    outcome.start_error = std::string("cannot create pipes: ") + std::strerror(errno);
    return outcome;
  }
  ChildSpec child;
  child.argv = spec.argv;
  child.env = spec.env;
  child.stdout_fd = out.write_fd();
  child.stderr_fd = err.write_fd();
  const pid_t pid = StartChild(child, outcome.start_error);
  if (pid < 0) return outcome;
  outcome.started = true;
  out.CloseWrite();
  err.CloseWrite();
  for (int fd : {out.read_fd(), err.read_fd()}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

  std::string stderr_text;
  auto keep_stdout = [&](const char* data, std::size_t size) {
    const std::size_t room = spec.stdout_limit_bytes - outcome.stdout_text.size();
    if (size > room) outcome.stdout_truncated = true;
    outcome.stdout_text.append(data, std::min(size, room));
  };
  auto keep_stderr = [&](const char* data, std::size_t size) {
    stderr_text.append(data, size);
    // Trim now and then rather than on every read, so a flood costs linear time; at a line start
    // like the final cut, which leaves a text no longer than the limit as it is.
    if (stderr_text.size() > 2 * spec.stderr_tail_bytes + 65536) {
      stderr_text = Tail(stderr_text, spec.stderr_tail_bytes);
    }
  };

  auto deadline = start + spec.timeout;
  bool exited = false;
  while (true) {
    if (!exited && HasExited(pid)) {
      exited = true;
      // Whatever the worker started must not outlive it.
      kill(-pid, SIGKILL);
      ForgetChildGroup(pid);
      deadline = std::min(deadline, Clock::now() + kDrainGrace);
    }
    pollfd fds[2];
    nfds_t count = 0;
    if (out.read_fd() >= 0) fds[count++] = {out.read_fd(), POLLIN, 0};
    if (err.read_fd() >= 0) fds[count++] = {err.read_fd(), POLLIN, 0};
    if (exited && count == 0) break;
    const auto now = Clock::now();
    if (now >= deadline) {
      if (!exited) {
        outcome.timed_out = true;
        kill(-pid, SIGKILL);
        ForgetChildGroup(pid);
      }
      break;
    }
    const auto wait = std::min<Clock::duration>(kPollSlice, deadline - now);
    const int ready = poll(
        fds, count, static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count()));
    if (ready < 0) {
      // EINTR, or a resource shortage that may pass; the deadline still bounds the loop.
      if (errno != EINTR) std::this_thread::sleep_for(kPollSlice);
      continue;
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      const bool is_stdout = fds[i].fd == out.read_fd();
      const bool open =
          is_stdout ? ReadAvailable(fds[i].fd, keep_stdout) : ReadAvailable(fds[i].fd, keep_stderr);
      if (!open) is_stdout ? out.CloseRead() : err.CloseRead();
    }
  }
  // Bytes already in the pipes are still worth having, even after a kill.
  if (out.read_fd() >= 0) ReadAvailable(out.read_fd(), keep_stdout);
  if (err.read_fd() >= 0) ReadAvailable(err.read_fd(), keep_stderr);

  outcome.unreaped = !Reap(pid, outcome);
  outcome.stderr_tail = Tail(stderr_text, spec.stderr_tail_bytes);
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return outcome;
}

}  // namespace advisor
