#include "engine/util/cpu_pressure.h"

#include <fstream>
#include <sstream>

namespace advisor {

std::optional<double> CpuStallSeconds(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (kind != "some") continue;
    for (std::string field; fields >> field;) {
      if (field.rfind("total=", 0) != 0) continue;
      try {
        std::size_t used = 0;
        const unsigned long long micros = std::stoull(field.substr(6), &used);
        if (used != field.size() - 6) return std::nullopt;
        return micros * 1e-6;
      } catch (const std::exception&) {  // not a number, or beyond 64 bits
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

}  // namespace advisor
