#include "engine/report/svg_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "engine/report/html_escape.h"

namespace advisor {

std::string Px(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

double TickStep(double max) {
  const double rough = max / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(rough)));
  for (double multiple : {1.0, 2.0, 5.0}) {
    if (rough <= multiple * magnitude) return multiple * magnitude;
  }
  return 10 * magnitude;
}

std::string TickLabel(double value, AxisUnit unit) {
  char buffer[32];
  switch (unit) {
    case AxisUnit::kShare:
      std::snprintf(buffer, sizeof buffer, "%g%%", value * 100);
      break;
    case AxisUnit::kSamplesPerSecond:
      std::snprintf(buffer, sizeof buffer, "%g/s", value);
      break;
    case AxisUnit::kMegabytes:
      std::snprintf(buffer, sizeof buffer, "%g MB", value);
      break;
    case AxisUnit::kEvents:
      std::snprintf(buffer, sizeof buffer, "#%g", value);
      break;
    case AxisUnit::kMilliseconds:
      std::snprintf(buffer, sizeof buffer, "%g ms", value);
      break;
  }
  return buffer;
}

std::size_t CodePoints(const std::string& text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

std::string TruncateLeft(const std::string& text, std::size_t max_chars) {
  std::size_t chars = CodePoints(text);
  if (chars <= max_chars) return text;
  std::size_t start = 0;
  for (std::size_t drop = chars - (max_chars - 1); drop > 0; --drop) {
    ++start;
    while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  }
  return "\u2026" + text.substr(start);
}

std::string LegendSvg(const std::vector<LegendEntry>& legend, double x) {
  std::ostringstream svg;
  for (const LegendEntry& entry : legend) {
    svg << "<rect class=\"" << EscapeHtml(entry.css_class) << "\" x=\"" << Px(x)
        << "\" y=\"6\" width=\"12\" height=\"12\" rx=\"2\"/>"
        << "<text class=\"legend\" x=\"" << Px(x + 17) << "\" y=\"16\">" << EscapeHtml(entry.label)
        << "</text>\n";
    x += 17 + CodePoints(entry.label) * 7.0 + 22;
  }
  return svg.str();
}

}  // namespace advisor
