// Every process advisor starts (the autotest's workers, script mode's training command) starts
// through StartChild, so that none outlives advisor or keeps computing after it is gone:
//
//  - The child leads a process group of its own. advisor can end it with everything it started
//    (a DataLoader's workers), and a Ctrl-C in the terminal, which goes to advisor's group, does
//    not reach it directly: advisor forwards it (interrupts.h).
//  - It dies with advisor: PR_SET_PDEATHSIG (SIGKILL) is armed between fork and exec, and a child
//    whose parent died before that exits at once (the getppid check). The kernel sends the
//    signal when the *thread* that called StartChild ends, so call it from a thread that outlives
//    the child: the main thread, or one that waits for the child.
//  - Its group is registered from before the child can run until ForgetChildGroup, so that an
//    interrupt (interrupts.h) or a hung step (watchdog.h) ends it.
//  - It starts with no blocked signals and default dispositions, whatever advisor (or a library
//    in it) blocked or handled.
//
// Contract for the caller: once the child has ended, kill its group (kill(-pid, SIGKILL): what it
// left behind goes too) and call ForgetChildGroup before reaping it, so that a group id is never
// signalled after the kernel could have reused it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace advisor {

struct ChildSpec {
  std::vector<std::string> argv;           // argv[0] is looked up in PATH when it has no '/'
  std::map<std::string, std::string> env;  // added to (or replacing in) advisor's environment
  int stdin_fd = -1;                       // -1: /dev/null
  int stdout_fd = -1;                      // -1: advisor's own
  int stderr_fd = -1;                      // -1: advisor's own
  std::vector<int> inherited_fds;          // kept open in the child under the same numbers
};

// Starts the child and returns its pid, which is also its process group id. Returns -1 with
// `error` set to one line when it cannot start, e.g. "cannot run python4: No such file or
// directory"; nothing is left registered then.
pid_t StartChild(const ChildSpec& spec, std::string& error);

// The group of a child that has ended and been killed: no longer signalled on an interrupt.
void ForgetChildGroup(pid_t group);

// For interrupts.h: sends `signal` to every registered group, waits up to `grace` for each
// group's leader to exit, then kills every group with SIGKILL.
void EndChildGroups(int signal, std::chrono::milliseconds grace);

}  // namespace advisor
