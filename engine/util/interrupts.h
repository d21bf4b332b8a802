// What advisor does when it is interrupted or must give up on a run: its children
// (child_processes.h) end, its scratch paths (scratch_paths.h) go, and it exits at once.
#pragma once

namespace advisor {

// How long children get to end after a forwarded SIGINT, SIGTERM or SIGHUP (a training script's
// KeyboardInterrupt handler, say) before their groups are killed.
inline constexpr int kChildGraceMs = 2000;

// Installs handlers for SIGINT, SIGTERM and SIGHUP; later calls do nothing. On one of them,
// advisor forwards the signal to every registered child process group, waits up to
// kChildGraceMs for them, kills what is left, removes every registered scratch path, and dies of
// the same signal, so that its parent sees an interrupted advisor (status 130 for Ctrl-C in a
// shell). The work runs on a thread of its own, woken by the handler through a pipe: the handler
// itself only writes one byte, which is async-signal-safe.
void InstallInterruptCleanup();

// For a run that cannot go on and cannot be unwound (a training step that never returns): kills
// every registered child process group, removes every registered scratch path and exits with
// `status` without running destructors or atexit handlers (the stuck thread still holds what they
// would need).
[[noreturn]] void AbandonRun(int status);

}  // namespace advisor
