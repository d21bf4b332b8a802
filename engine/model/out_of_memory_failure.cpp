#include "engine/model/out_of_memory_failure.h"

#include <cmath>
#include <cstdlib>
#include <regex>

namespace advisor {

std::optional<double> RequestedMbOf(const std::string& message) {
  // torch's format_size: "512 bytes", "20.00 MiB", "2.00 GiB" (1.13 to 2.x alike).
  static const std::regex kRequest(
      R"(Tried to allocate ([0-9]+(?:\.[0-9]+)?) ?(bytes|KiB|MiB|GiB|TiB))");
  std::smatch match;
  if (!std::regex_search(message, match, kRequest)) return std::nullopt;
  const double amount = std::strtod(match[1].str().c_str(), nullptr);
  const std::string unit = match[2].str();
  const double mb = unit == "bytes" ? amount / 1048576.0
                    : unit == "KiB" ? amount / 1024.0
                    : unit == "MiB" ? amount
                    : unit == "GiB" ? amount * 1024.0
                                    : amount * 1048576.0;
  if (!std::isfinite(mb)) return std::nullopt;
  return mb;
}

}  // namespace advisor
