// A stand-in for advisor in the tests of child processes, interrupts and the step timeout: it
// starts a child the way advisor starts its workers, holds a scratch folder, says on stdout
// "<its pid> <the child's pid> <the scratch folder>" and then waits, as advisor waits during a
// long step or an A/B round, until a signal or its step timeout ends it.
//
//   advisor_like interrupt COMMAND...          handles interrupts like advisor; waits forever
//   advisor_like hang SECONDS COMMAND...       a step that never returns, guarded for SECONDS
//   advisor_like return COMMAND...             waits for the child, then returns from main
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/util/child_processes.h"
#include "engine/util/interrupts.h"
#include "engine/util/scratch_paths.h"
#include "engine/util/watchdog.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: advisor_like interrupt|hang SECONDS|return COMMAND...\n");
    return 2;
  }
  const bool hang = std::strcmp(argv[1], "hang") == 0;
  advisor::InstallInterruptCleanup();
  if (hang) advisor::SetStepTimeout(std::chrono::seconds(std::stoi(argv[2])), "model.pt");

  const advisor::PrivateTempDir scratch("advisor-like-");
  std::FILE* file = std::fopen((scratch.path() + "/result.json").c_str(), "w");
  std::fclose(file);
  advisor::ChildSpec child;
  child.argv.assign(argv + (hang ? 3 : 2), argv + argc);
  std::string error;
  const pid_t pid = advisor::StartChild(child, error);
  if (pid < 0) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  std::printf("%d %d %s\n", static_cast<int>(getpid()), static_cast<int>(pid),
              scratch.path().c_str());
  std::fflush(stdout);
  if (std::strcmp(argv[1], "return") == 0) {
    siginfo_t ended{};
    waitid(P_PID, static_cast<id_t>(pid), &ended, WEXITED | WNOWAIT);  // still unreaped: see below
    kill(-pid, SIGKILL);  // child_processes.h's contract: its group goes, forgotten, then reaped
    advisor::ForgetChildGroup(pid);
    int status = 0;
    waitpid(pid, &status, 0);
    return 0;
  }
  const advisor::StepTimeoutGuard guard("a training step");
  while (true) pause();
}
