#include "engine/report/svg_bar_chart.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/report/html_escape.h"
#include "engine/report/svg_parts.h"

namespace advisor {

namespace {

// Geometry in CSS pixels. Labels are monospace (module paths), so their width is predictable.
constexpr double kWidth = 960;
constexpr double kLabelCharWidth = 7.3;  // 12px monospace
constexpr std::size_t kMaxLabelChars = 40;
constexpr double kValueColumn = 190;
constexpr double kRowHeight = 26;
constexpr double kBarHeight = 16;
constexpr double kLegendHeight = 26;
constexpr double kAxisHeight = 24;
constexpr double kGap = 12;

double RowExtent(const BarRow& row) {
  double total = 0;
  for (const BarSegment& segment : row.segments) total += std::max(0.0, segment.value);
  return row.whisker ? std::max(total, row.whisker->high) : total;
}

}  // namespace

std::string RenderBarChartSvg(const BarChart& chart) {
  std::size_t longest_label = 0;
  for (const BarRow& row : chart.rows) {
    longest_label = std::max(longest_label, std::min(CodePoints(row.label), kMaxLabelChars));
  }
  const double label_width = std::max(60.0, longest_label * kLabelCharWidth + kGap);
  const double bar_left = label_width;
  const double bar_width = kWidth - label_width - kValueColumn;
  const double top = chart.legend.empty() ? 4 : kLegendHeight;
  const double rows_height = chart.rows.size() * kRowHeight;
  const double height = top + rows_height + kAxisHeight;

  double max = chart.axis_max;
  if (max <= 0) {
    for (const BarRow& row : chart.rows) max = std::max(max, RowExtent(row));
  }
  if (max <= 0) max = 1;
  const double tick = TickStep(max);
  max = std::ceil(max / tick - 1e-9) * tick;
  const auto x = [&](double value) {
    return bar_left + std::clamp(value / max, 0.0, 1.0) * bar_width;
  };

  std::ostringstream svg;
  svg << "<svg class=\"chart\" width=\"" << Px(kWidth) << "\" height=\"" << Px(height)
      << "\" viewBox=\"0 0 " << Px(kWidth) << " " << Px(height) << "\" role=\"img\" aria-label=\""
      << EscapeHtml(chart.title) << "\">\n";

  svg << LegendSvg(chart.legend, bar_left);

  const int ticks = static_cast<int>(std::lround(max / tick));
  for (int i = 0; i <= ticks; ++i) {
    const double value = i * tick;
    svg << "<line class=\"grid\" x1=\"" << Px(x(value)) << "\" x2=\"" << Px(x(value)) << "\" y1=\""
        << Px(top) << "\" y2=\"" << Px(top + rows_height) << "\"/>"
        << "<text class=\"tick\" x=\"" << Px(x(value)) << "\" y=\"" << Px(top + rows_height + 16)
        << "\" text-anchor=\"middle\">" << EscapeHtml(TickLabel(value, chart.unit)) << "</text>\n";
  }

  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const BarRow& row = chart.rows[i];
    const double row_top = top + i * kRowHeight;
    const double bar_top = row_top + (kRowHeight - kBarHeight) / 2;
    const double middle = row_top + kRowHeight / 2;
    svg << "<g class=\"row" << (row.highlighted ? " highlighted" : "") << "\"><title>"
        << EscapeHtml(row.tooltip.empty() ? row.label : row.tooltip) << "</title>";
    if (row.highlighted) {
      svg << "<rect class=\"row-band\" x=\"0\" y=\"" << Px(row_top + 1) << "\" width=\""
          << Px(kWidth) << "\" height=\"" << Px(kRowHeight - 2) << "\" rx=\"3\"/>";
    }
    svg << "<text class=\"label\" x=\"" << Px(label_width - kGap / 2) << "\" y=\"" << Px(middle + 4)
        << "\" text-anchor=\"end\">" << EscapeHtml(TruncateLeft(row.label, kMaxLabelChars))
        << "</text>";
    double offset = 0;
    for (const BarSegment& segment : row.segments) {
      if (segment.value <= 0) continue;
      svg << "<rect class=\"" << EscapeHtml(segment.css_class) << "\" x=\"" << Px(x(offset))
          << "\" y=\"" << Px(bar_top) << "\" width=\""
          << Px(std::max(1.0, x(offset + segment.value) - x(offset))) << "\" height=\""
          << Px(kBarHeight) << "\"/>";
      offset += segment.value;
    }
    double value_x = x(offset);
    if (row.whisker) {
      const double low = x(row.whisker->low), high = x(row.whisker->high);
      svg << "<path class=\"whisker\" d=\"M" << Px(low) << " " << Px(middle) << "H" << Px(high)
          << "M" << Px(low) << " " << Px(middle - 5) << "V" << Px(middle + 5) << "M" << Px(high)
          << " " << Px(middle - 5) << "V" << Px(middle + 5) << "\"/>";
      value_x = std::max(value_x, high);
    }
    svg << "<text class=\"value\" x=\"" << Px(value_x + 6) << "\" y=\"" << Px(middle + 4) << "\">"
        << EscapeHtml(row.value_text) << "</text></g>\n";
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace advisor
