// The process groups advisor started, ended even when advisor is killed with SIGKILL, which
// nothing in advisor can catch. PR_SET_PDEATHSIG (child_processes.h) reaches only each group's
// leader: the script's own children (DataLoader workers, a launcher's ranks) computed on, adopted.
// A guardian process, forked once without a death signal and in a group of its own, holds the
// read end of a pipe whose only write end is advisor's; it learns each group as it is registered
// and forgotten, and when the pipe closes (advisor has ended, however it ended) it kills every
// group still registered.
//
// The guardian is a fork of advisor and carries advisor's command line, so it must not outlive
// an advisor that ends on its own: every way out of advisor but SIGKILL (returning from main or
// exit(), an interrupt, an abandoned run) calls EndGroupGuardian first, which closes the pipe and
// reaps the guardian.
#pragma once

#include <sys/types.h>

namespace advisor {

// Both are called with child_processes.cpp's registry lock held, so that the guardian learns the
// groups in the order they come and go; a group is forgotten before it is reaped, so the guardian
// never kills a group id the kernel could have reused. Best effort: without a guardian (it could
// not be started) the leaders still die of their death signal.
void GuardGroup(pid_t group);
void UnguardGroup(pid_t group);

// Closes the guardian's pipe, so that it kills the groups still registered, and waits for it to
// exit. Later calls, and groups registered after it, do nothing. Registered with atexit when the
// guardian starts; interrupts.cpp calls it before advisor dies of a signal or abandons a run.
void EndGroupGuardian();

}  // namespace advisor
