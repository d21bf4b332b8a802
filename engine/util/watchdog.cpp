#include "engine/util/watchdog.h"

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "engine/util/interrupts.h"

namespace advisor {
namespace {

using Clock = std::chrono::steady_clock;

struct Watch {
  std::mutex mutex;
  std::condition_variable changed;
  std::chrono::seconds limit{0};
  std::string subject;
  const char* what = nullptr;  // the guarded work; null while no guard is alive
  Clock::time_point deadline;
  bool watching = false;  // the thread runs
};

// Never destroyed: the watching thread may still wait on it while the process exits.
Watch& TheWatch() {
  static Watch* watch = new Watch;
  return *watch;
}

[[noreturn]] void WatchSteps() {
  Watch& watch = TheWatch();
  std::unique_lock<std::mutex> lock(watch.mutex);
  while (true) {
    if (watch.what == nullptr) {
      watch.changed.wait(lock);
    } else if (Clock::now() < watch.deadline) {
      watch.changed.wait_until(lock, watch.deadline);
    } else {
      std::fprintf(stderr, "advisor: %s: %s did not finish within %lld s (--step-timeout)\n",
                   watch.subject.c_str(), watch.what,
                   static_cast<long long>(watch.limit.count()));
      std::fflush(stderr);
      AbandonRun(kStepTimeoutStatus);
    }
  }
}

}  // namespace

void SetStepTimeout(std::chrono::seconds limit, std::string subject) {
  Watch& watch = TheWatch();
  std::lock_guard<std::mutex> lock(watch.mutex);
  watch.limit = limit;
  watch.subject = std::move(subject);
}

StepTimeoutGuard::StepTimeoutGuard(const char* what) {
  Watch& watch = TheWatch();
  std::lock_guard<std::mutex> lock(watch.mutex);
  if (watch.limit.count() <= 0) return;
  if (!watch.watching) {
    std::thread(WatchSteps).detach();
    watch.watching = true;
  }
  watch.what = what;
  watch.deadline = Clock::now() + watch.limit;
  watch.changed.notify_one();
}

StepTimeoutGuard::~StepTimeoutGuard() {
  Watch& watch = TheWatch();
  std::lock_guard<std::mutex> lock(watch.mutex);
  watch.what = nullptr;
  watch.changed.notify_one();
}

}  // namespace advisor
