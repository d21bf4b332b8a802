// What report.html's SVG charts share: coordinates written to a tenth of a pixel, round ticks and
// their labels, labels cut to a width by code points, the legend. The bar charts
// (svg_bar_chart.h) and the memory chart (svg_memory_chart.h) draw with these, so they read
// alike.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace advisor {

enum class AxisUnit { kMilliseconds, kShare, kSamplesPerSecond, kMegabytes, kEvents };

// "12.5": an SVG coordinate or length.
std::string Px(double value);

// 1, 2 or 5 times a power of ten, giving about four to six gridlines up to `max`.
double TickStep(double max);

// A tick's label without the trailing zeros measurements keep: "20 ms", "50%", "200 MB", "#500".
std::string TickLabel(double value, AxisUnit unit);

// UTF-8 code points, so that a label is never cut inside a character.
std::size_t CodePoints(const std::string& text);

// At most `max_chars` code points, keeping the tail ("…11.attn.proj"): for module paths the
// last parts say the most.
std::string TruncateLeft(const std::string& text, std::size_t max_chars);

struct LegendEntry {
  std::string css_class;  // the swatch's fill, e.g. "fill-forward"
  std::string label;
};

// The legend in one row from `x`, its swatches 6 px from the top; all text HTML-escaped.
std::string LegendSvg(const std::vector<LegendEntry>& legend, double x);

}  // namespace advisor
