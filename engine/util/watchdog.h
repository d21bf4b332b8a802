// The step timeout: a training step whose forward, loss, backward or input stage never returns
// would hang advisor (and each autotest worker) for good. A process-wide watchdog thread ends the
// run when one guarded stretch of work outlives the limit: it prints one line naming the model
// and what hung, and AbandonRun (interrupts.h) kills the children, removes the scratch paths and
// exits with kStepTimeoutStatus.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

namespace advisor {

// The default of `--step-timeout` (seconds): far above any step advisor is meant for, so that
// only a step that hangs reaches it.
inline constexpr int kDefaultStepTimeoutSeconds = 600;
// The exit status of a run abandoned at the step timeout, as timeout(1) exits.
inline constexpr int kStepTimeoutStatus = 124;

// A wait that outlived --step-timeout where no guard runs (script mode waits for the script's
// next step in its own process): main prints the one line and exits with kStepTimeoutStatus,
// as the watchdog does.
class StepTimedOut : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Sets the limit for every guard from now on; `subject` opens the message (the model's path).
// A limit of zero turns the watchdog off.
void SetStepTimeout(std::chrono::seconds limit, std::string subject);

// Guards one stretch of work for its lifetime: past the limit, the run is abandoned with
// "advisor: SUBJECT: WHAT did not finish within N s (--step-timeout)". Guards do not nest.
class StepTimeoutGuard {
 public:
  explicit StepTimeoutGuard(const char* what);
  ~StepTimeoutGuard();
  StepTimeoutGuard(const StepTimeoutGuard&) = delete;
  StepTimeoutGuard& operator=(const StepTimeoutGuard&) = delete;
};

}  // namespace advisor
