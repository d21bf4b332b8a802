#include "probes/ops/page_faults.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace advisor {

std::int64_t ThreadMinorFaults() {
  rusage usage{};
  return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_minflt : -1;
}

namespace {

// One pass: map `bytes` of fresh memory, write a byte to each page, unmap. Nanoseconds per fault
// taken, or 0 where the pass could not tell.
double OnePass(std::size_t bytes, std::size_t page) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return 0;
  // Small pages, as a freed-and-remapped tensor buffer gets them: a huge page would fault 512
  // pages' worth at once.
  madvise(memory, bytes, MADV_NOHUGEPAGE);
  auto* bytes_of = static_cast<volatile char*>(memory);
  const std::int64_t faults_before = ThreadMinorFaults();
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t offset = 0; offset < bytes; offset += page) bytes_of[offset] = 1;
  const auto end = std::chrono::steady_clock::now();
  const std::int64_t faults = ThreadMinorFaults() - faults_before;
  munmap(memory, bytes);
  if (faults_before < 0 || faults <= 0) return 0;
  return std::chrono::duration<double, std::nano>(end - start).count() / faults;
}

double Measure() {
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return 0;
  // The fastest of three passes over 4 MiB: a pass the scheduler interrupted reads slow.
  double fastest = 0;
  for (int pass = 0; pass < 3; ++pass) {
    const double ns = OnePass(std::size_t{4} << 20, static_cast<std::size_t>(page));
    if (ns > 0) fastest = fastest > 0 ? std::min(fastest, ns) : ns;
  }
  return fastest;
}

}  // namespace

double PageFaultNs() {
  static const double ns = Measure();
  return ns;
}

}  // namespace advisor
