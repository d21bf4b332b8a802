#include "engine/util/cpu_model.h"

#include <fstream>
#include <thread>

namespace advisor {

std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string model = "unknown CPU";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  return model + " (" + std::to_string(std::thread::hardware_concurrency()) + " cores)";
}

}  // namespace advisor
