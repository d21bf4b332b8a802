// Page faults: the op probe's count of them, and what one costs on this host, the unit that turns
// a count into time. Torch-free.
#pragma once

#include <cstdint>

namespace advisor {

// Minor page faults the calling thread has taken so far (getrusage, about 0.2 us); -1 where the
// kernel does not say.
std::int64_t ThreadMinorFaults();

// Nanoseconds per minor page fault, measured once per process (the first call faults in fresh
// anonymous memory: about 5 ms) and remembered; 0 where it cannot be measured.
double PageFaultNs();

}  // namespace advisor
