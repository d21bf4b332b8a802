#include "engine/report/svg_memory_chart.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "engine/report/format.h"
#include "engine/report/html_escape.h"
#include "engine/report/svg_parts.h"

namespace advisor {
namespace {

// Geometry in CSS pixels, as the bar charts' (svg_bar_chart.cpp).
constexpr double kWidth = 960;
constexpr double kPlotLeft = 70;
constexpr double kPlotRight = kWidth - 16;
constexpr double kLegendHeight = 26;
constexpr double kPlotHeight = 220;
constexpr double kAxisHeight = 24;
constexpr double kLaneHeight = 18;
constexpr double kLaneGap = 4;
constexpr int kModuleLanes = 3;
constexpr double kLabelCharWidth = 6.2;  // 10px text in a span

const char* PhaseClass(const std::string& phase) {
  if (phase == "forward") return "fill-forward";
  if (phase == "backward") return "fill-backward";
  return "fill-optimizer";
}

struct Scale {
  double from = 0, to = 1, left = 0, right = 1;
  double operator()(double value) const {
    return left + std::clamp((value - from) / (to - from), 0.0, 1.0) * (right - left);
  }
};

// Round ticks from `from` to `to`.
std::vector<double> Ticks(double from, double to) {
  const double step = TickStep(to - from);
  std::vector<double> ticks;
  for (double tick = std::ceil(from / step - 1e-9) * step; tick <= to + 1e-9 * step; tick += step) {
    ticks.push_back(std::abs(tick) < 1e-9 * step ? 0 : tick);
  }
  return ticks;
}

}  // namespace

std::string RenderMemoryChartSvg(const MemoryHistory& history, const MemoryPeak& peak) {
  // The time axis holds the points, the ranges (which may start before the first event) and
  // the peak.
  double first = 0, last = peak.time_ms, top = 0;
  for (const MemoryPoint& point : history.timeline) {
    last = std::max(last, point.time_ms);
    top = std::max({top, point.allocated_mb, point.reserved_mb});
  }
  int lanes = 0;
  for (const MemorySpan& span : history.spans) {
    first = std::min(first, span.start_ms);
    last = std::max(last, span.end_ms);
    lanes = std::max(lanes, span.kind == MemorySpan::Kind::kPhase
                                ? 1
                                : 2 + std::min(span.depth, kModuleLanes - 1));
  }
  if (last <= first) last = first + 1;
  if (top <= 0) top = 1;
  const double y_step = TickStep(top);
  top = std::ceil(top / y_step - 1e-9) * y_step;

  const double plot_top = kLegendHeight;
  const double plot_bottom = plot_top + kPlotHeight;
  const double lanes_top = plot_bottom + kAxisHeight + kLaneGap;
  const double height = lanes_top + lanes * (kLaneHeight + kLaneGap) + 4;
  const Scale x{first, last, kPlotLeft, kPlotRight};
  const Scale y{0, top, plot_bottom, plot_top};
  const AxisUnit time_unit = history.timed ? AxisUnit::kMilliseconds : AxisUnit::kEvents;

  std::ostringstream svg;
  svg << "<svg class=\"chart memory-chart\" width=\"" << Px(kWidth) << "\" height=\"" << Px(height)
      << "\" viewBox=\"0 0 " << Px(kWidth) << " " << Px(height)
      << "\" role=\"img\" aria-label=\"Allocated and reserved memory over the history, peak "
      << EscapeHtml(FormatNumber(peak.mb)) << " MB\">\n";
  std::vector<LegendEntry> legend = {{"fill-allocated", "allocated"},
                                     {"fill-reserved", "reserved"}};
  for (const char* phase : {"forward", "backward", "optimizer"}) {
    for (const MemorySpan& span : history.spans) {
      if (span.kind == MemorySpan::Kind::kPhase && span.label == phase) {
        legend.push_back({PhaseClass(phase), phase});
        break;
      }
    }
  }
  svg << LegendSvg(legend, kPlotLeft);

  for (const double tick : Ticks(0, top)) {
    svg << "<line class=\"grid\" x1=\"" << Px(kPlotLeft) << "\" x2=\"" << Px(kPlotRight)
        << "\" y1=\"" << Px(y(tick)) << "\" y2=\"" << Px(y(tick)) << "\"/><text class=\"tick\" x=\""
        << Px(kPlotLeft - 6) << "\" y=\"" << Px(y(tick) + 4) << "\" text-anchor=\"end\">"
        << EscapeHtml(TickLabel(tick, AxisUnit::kMegabytes)) << "</text>\n";
  }
  for (const double tick : Ticks(first, last)) {
    svg << "<line class=\"grid\" x1=\"" << Px(x(tick)) << "\" x2=\"" << Px(x(tick)) << "\" y1=\""
        << Px(plot_top) << "\" y2=\"" << Px(plot_bottom) << "\"/><text class=\"tick\" x=\""
        << Px(x(tick)) << "\" y=\"" << Px(plot_bottom + 16) << "\" text-anchor=\"middle\">"
        << EscapeHtml(TickLabel(tick, time_unit)) << "</text>\n";
  }

  if (!history.timeline.empty()) {
    // Memory holds its level until the next point: steps, not slopes.
    const auto steps = [&](double MemoryPoint::*value) {
      std::ostringstream points;
      const MemoryPoint* before = nullptr;
      for (const MemoryPoint& point : history.timeline) {
        if (before) points << Px(x(point.time_ms)) << "," << Px(y(before->*value)) << " ";
        points << Px(x(point.time_ms)) << "," << Px(y(point.*value)) << " ";
        before = &point;
      }
      return points.str();
    };
    svg << "<polygon class=\"allocated\" points=\"" << Px(x(history.timeline.front().time_ms))
        << "," << Px(plot_bottom) << " " << steps(&MemoryPoint::allocated_mb)
        << Px(x(history.timeline.back().time_ms)) << "," << Px(plot_bottom)
        << "\"><title>allocated: the highest in each stretch of the history</title></polygon>\n"
        << "<polyline class=\"reserved\" points=\"" << steps(&MemoryPoint::reserved_mb)
        << "\"><title>reserved by the allocator's segments</title></polyline>\n";
  }

  for (const OutOfMemory& oom : history.ooms) {
    svg << "<g><title>"
        << EscapeHtml("out of memory: " + FormatNumber(oom.requested_mb) + " MB requested, " +
                      FormatNumber(oom.device_free_mb) + " MB free on the device")
        << "</title><line class=\"oom\" x1=\"" << Px(x(oom.time_ms)) << "\" x2=\""
        << Px(x(oom.time_ms)) << "\" y1=\"" << Px(plot_top) << "\" y2=\"" << Px(plot_bottom)
        << "\"/><text class=\"oom\" x=\"" << Px(x(oom.time_ms) - 4) << "\" y=\""
        << Px(plot_top + 12) << "\" text-anchor=\"end\">OOM</text></g>\n";
  }

  const double peak_x = x(peak.time_ms);
  const bool label_left = peak_x > (kPlotLeft + kPlotRight) / 2;
  svg << "<g><title>"
      << EscapeHtml("peak: " + FormatNumber(peak.mb) + " MB allocated, " +
                    FormatNumber(peak.reserved_mb) + " MB reserved")
      << "</title><line class=\"peak\" x1=\"" << Px(peak_x) << "\" x2=\"" << Px(peak_x)
      << "\" y1=\"" << Px(plot_top) << "\" y2=\"" << Px(plot_bottom)
      << "\"/><circle class=\"peak\" cx=\"" << Px(peak_x) << "\" cy=\"" << Px(y(peak.mb))
      << "\" r=\"4\"/><text class=\"peak\" x=\"" << Px(peak_x + (label_left ? -8 : 8)) << "\" y=\""
      << Px(std::max(plot_top + 12, y(peak.mb) - 8)) << "\" text-anchor=\""
      << (label_left ? "end" : "start") << "\">"
      << EscapeHtml("peak " + FormatNumber(peak.mb) + " MB") << "</text></g>\n";

  const auto lane_top = [&](int lane) { return lanes_top + lane * (kLaneHeight + kLaneGap); };
  if (lanes > 0) {
    svg << "<text class=\"lane\" x=\"" << Px(kPlotLeft - 6) << "\" y=\"" << Px(lane_top(0) + 13)
        << "\" text-anchor=\"end\">phase</text>";
  }
  if (lanes > 1) {
    svg << "<text class=\"lane\" x=\"" << Px(kPlotLeft - 6) << "\" y=\"" << Px(lane_top(1) + 13)
        << "\" text-anchor=\"end\">modules</text>\n";
  }
  for (const MemorySpan& span : history.spans) {
    const bool phase = span.kind == MemorySpan::Kind::kPhase;
    const int lane = phase ? 0 : 1 + std::min(span.depth, kModuleLanes - 1);
    const double left = x(span.start_ms);
    const double width = std::max(1.0, x(span.end_ms) - left);
    svg << "<g><title>"
        << EscapeHtml(span.label + ": " + FormatNumber(span.start_ms) + " to " +
                      FormatNumber(span.end_ms) + (history.timed ? " ms" : ""))
        << "</title><rect class=\"" << (phase ? PhaseClass(span.label) : "fill-module") << "\" x=\""
        << Px(left) << "\" y=\"" << Px(lane_top(lane)) << "\" width=\"" << Px(width)
        << "\" height=\"" << Px(kLaneHeight) << "\"/>";
    const auto fits = static_cast<std::size_t>((width - 6) / kLabelCharWidth);
    if (!phase && fits >= 4) {
      svg << "<text class=\"span\" x=\"" << Px(left + 3) << "\" y=\"" << Px(lane_top(lane) + 13)
          << "\">" << EscapeHtml(TruncateLeft(span.label, fits)) << "</text>";
    }
    svg << "</g>\n";
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace advisor
