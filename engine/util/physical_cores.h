// How many physical cores the machine has, for the "physical-cores" thread counts of recipes
// (intra_op_threads, dataloader_workers) and the cores an input stage's workers can use.
// Hyper-threads share a core's arithmetic units, so one ATen thread per physical core is the
// usual best for compute-bound CPU work.
#pragma once

#include <string>

namespace advisor {

// Distinct (physical id, core id) pairs of `cpuinfo_text` (the format of /proc/cpuinfo); 0 when
// the text names none (some virtual machines and non-x86 kernels).
int CountPhysicalCores(const std::string& cpuinfo_text);

// Physical cores of this machine, at most the CPUs this process may run on, at least 1.
int PhysicalCoreCount();

}  // namespace advisor
