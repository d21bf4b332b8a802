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

// CPU seconds every process but this one and its descendants has used since boot: the machine's
// busy time (/proc/stat) less this process tree's (/proc/PID/stat, reaped children included). A
// stall is other work's only where other processes ran: a workload's own DataLoader workers, more
// threads than cores, stall its step too, and that is the workload as it runs, not noise.
// nullopt where /proc does not say. `proc` and `self` are for tests.
std::optional<double> OthersCpuSeconds(const std::string& proc = "/proc", int self = 0);

}  // namespace advisor
