// The host CPU, as reports name it.
#pragma once

#include <string>

namespace advisor {

// "AMD EPYC 7B13 (2 cores)": /proc/cpuinfo's model name and the hardware threads.
std::string CpuModelName();

}  // namespace advisor
