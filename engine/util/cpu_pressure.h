// How long tasks have waited for a CPU on this machine: Linux's pressure stall information
// (/proc/pressure/cpu, "some ... total=" microseconds). Over a measured window, the share of its
// wall time in which some task was runnable but not running says whether other processes were
// taking the cores, which distorts every op time the window records (an idle 2-core VM: under
// 6 % while advisor runs; beside one busy process: over 40 %).
#pragma once

#include <optional>
#include <string>

namespace advisor {

// Seconds some task has waited for a CPU since boot; nullopt where the kernel does not say
// (no PSI, or `file` unreadable). `file` is for tests.
std::optional<double> CpuStallSeconds(const std::string& file = "/proc/pressure/cpu");

}  // namespace advisor
