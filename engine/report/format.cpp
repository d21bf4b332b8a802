#include "engine/report/format.h"

#include <cmath>

#include "engine/util/printf.h"

namespace advisor {

std::string FormatNumber(double value) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  if (value < 0) return "-" + FormatNumber(-value);
  if (value < 0.0005) return "<0.001";
  // Fewer decimals as values grow; below 1 a fixed three keeps table columns aligned.
  int decimals = 3;
  if (value >= 1) decimals = 2;
  if (value >= 100) decimals = 1;
  if (value >= 1000) decimals = 0;
  return Printf("%.*f", decimals, value);
}

std::string FormatShare(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  if (fraction > 0 && fraction < 0.001) return "<0.1%";
  return Printf("%.1f%%", fraction * 100);
}

std::string FormatSpeedup(double ratio) { return Printf("%.2f", ratio) + "\u00d7"; }

std::string FormatScientific(double value) { return Printf("%.1e", value); }

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return (unit == 0 ? Printf("%.0f", bytes) : FormatNumber(bytes)) + " " + kUnits[unit];
}

std::string FormatSeconds(double seconds) { return Printf("%.1f", seconds) + " s"; }

std::string FormatShape(const std::vector<long long>& shape) {
  if (shape.empty()) return "scalar";
  std::string text;
  for (const long long size : shape) {
    if (!text.empty()) text += "\u00d7";
    text += std::to_string(size);
  }
  return text;
}

}  // namespace advisor
