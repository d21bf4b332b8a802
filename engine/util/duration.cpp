#include "engine/util/duration.h"

#include <cctype>
#include <cmath>

#include "engine/util/printf.h"

namespace advisor {

std::optional<std::chrono::seconds> ParseDuration(const std::string& text) {
  static constexpr struct {
    char suffix;
    long long seconds;
  } kUnits[] = {{'h', 3600}, {'m', 60}, {'s', 1}};
  constexpr long long kLimit = 366LL * 24 * 3600;  // a year: anything longer is a typo
  long long total = 0;
  std::size_t position = 0;
  std::size_t next_unit = 0;  // units must come in the order h, m, s, each once
  while (position < text.size()) {
    const std::size_t digits_start = position;
    long long value = 0;
    while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) {
      value = value * 10 + (text[position] - '0');
      if (value > kLimit) return std::nullopt;
      ++position;
    }
    if (position == digits_start) return std::nullopt;
    if (position == text.size()) {  // a bare number: seconds, only alone ("1h30" is unclear)
      if (digits_start > 0) return std::nullopt;
      total = value;
      break;
    }
    const char suffix = text[position++];
    while (next_unit < std::size(kUnits) && kUnits[next_unit].suffix != suffix) ++next_unit;
    if (next_unit == std::size(kUnits)) return std::nullopt;
    total += value * kUnits[next_unit++].seconds;
    if (total > kLimit) return std::nullopt;
  }
  if (total <= 0) return std::nullopt;
  return std::chrono::seconds(total);
}

std::string FormatDuration(std::chrono::duration<double> duration) {
  const long long total = std::llround(std::max(0.0, duration.count()));
  const long long hours = total / 3600;
  const long long minutes = total % 3600 / 60;
  const long long seconds = total % 60;
  if (hours > 0) return Printf("%lldh%02lldm", hours, minutes);
  if (minutes > 0) return Printf("%lldm%02llds", minutes, seconds);
  return Printf("%llds", seconds);
}

}  // namespace advisor
