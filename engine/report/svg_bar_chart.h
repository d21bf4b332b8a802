// Horizontal bar charts as inline SVG for report.html: one generic chart serves the step
// breakdown (one stacked row), each bisection level (one bar per candidate), the per-module
// forward/backward chart (stacked rows) and the fix benchmark (bars with min-max whiskers).
// Colours and fonts come from the page's CSS classes, so the charts follow the page's theme.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/report/svg_parts.h"

namespace advisor {

struct BarSegment {
  double value = 0;       // in axis units; segments stack left to right
  std::string css_class;  // fill colour, e.g. "fill-forward"
};

struct ValueRange {
  double low = 0;
  double high = 0;
};

struct BarRow {
  std::string label;  // left of the bar; long labels keep their tail
  std::vector<BarSegment> segments;
  std::string value_text;    // right of the bar
  std::string tooltip;       // shown on hover: the full label and the numbers
  bool highlighted = false;  // drawn with an outline and a bold label
  std::optional<ValueRange> whisker = std::nullopt;  // e.g. min..max of a benchmark
};

struct BarChart {
  std::string title;  // read by screen readers
  std::vector<BarRow> rows;
  std::vector<LegendEntry> legend;
  AxisUnit unit = AxisUnit::kMilliseconds;
  double axis_max = 0;  // 0: fit the longest bar or whisker
};

// An <svg> element. All text is HTML-escaped.
std::string RenderBarChartSvg(const BarChart& chart);

}  // namespace advisor
