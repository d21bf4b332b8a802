#include "engine/cli/stage_clock.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <utility>

#include "engine/util/printf.h"

namespace advisor {
namespace {

// Resident bytes now: /proc/self/statm's second field, in pages; 0 where it cannot be read.
double ResidentMb() {
  std::ifstream statm("/proc/self/statm");
  long long size = 0;
  long long resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

// User and system time of every thread of the process so far.
double ProcessCpuMs() {
  timespec now{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return 0;
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

double PeakResidentMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024 / 1e6;  // Linux counts it in KiB
}

}  // namespace

StageClock::StageClock(std::function<void(const std::string&)> print)
    : print_(std::move(print)),
      since_(std::chrono::steady_clock::now()),
      cpu_since_ms_(ProcessCpuMs()) {}

void StageClock::Done(const std::string& stage) {
  if (!print_) return;
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - since_).count();
  const double cpu_ms = ProcessCpuMs();
  print_(Printf("%s: %.0f ms (CPU %.0f ms); resident %.0f MB, peak %.0f MB", stage.c_str(), ms,
                cpu_ms - cpu_since_ms_, ResidentMb(), PeakResidentMb()));
  since_ = now;
  cpu_since_ms_ = cpu_ms;
}

void StageClock::Note(const std::string& line) {
  if (print_) print_(line);
}

}  // namespace advisor
