#include "engine/report/svg_memory_chart.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
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

// The step's phases a lane can show, in the legend's order.
constexpr const char* kPhases[] = {"data", "forward", "loss", "backward", "optimizer"};

std::string PhaseClass(const std::string& phase) {
  for (const char* known : kPhases) {
    if (phase == known) return std::string("fill-") + known;
  }
  return "fill-rest";
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

// What either chart draws: memory as stacked layers over time, an optional reserved line, the
// peak, OOMs, and the spans in lanes under it.
struct ChartInput {
  std::vector<LegendEntry> layers;            // bottom first, as the legend shows them
  std::vector<std::string> layer_classes;     // each layer's area
  std::vector<std::string> layer_titles;      // each layer's tooltip
  std::vector<double> times;                  // per point
  std::vector<std::vector<double>> layer_mb;  // per point, per layer: each layer's own bytes
  std::vector<double> reserved_mb;            // per point; empty: no reserved line
  const std::vector<MemorySpan>* spans = nullptr;
  const std::vector<OutOfMemory>* ooms = nullptr;
  bool timed = true;
  std::string aria_label;
  double peak_ms = 0;
  double peak_mb = 0;
  std::string peak_label;  // beside the peak's dot
  std::string peak_title;  // its tooltip
  std::string holder;      // the spans of this instance are drawn highlighted
  // The phases' colours in the legend too; a bisection's categories leave it no room for them,
  // and its phase bars are long enough to carry their names.
  bool phases_in_legend = true;
};

std::string RenderChart(const ChartInput& in) {
  const std::vector<MemorySpan> no_spans;
  const std::vector<OutOfMemory> no_ooms;
  const std::vector<MemorySpan>& spans = in.spans ? *in.spans : no_spans;
  const std::vector<OutOfMemory>& ooms = in.ooms ? *in.ooms : no_ooms;
  // Each layer stacked on those under it.
  std::vector<std::vector<double>> tops(in.times.size());
  for (std::size_t i = 0; i < in.times.size(); ++i) {
    double sum = 0;
    for (const double mb : in.layer_mb[i]) tops[i].push_back(sum += mb);
  }
  // The time axis holds the points, the ranges (which may start before the first event) and
  // the peak.
  double first = 0, last = in.peak_ms, top = in.peak_mb;
  for (std::size_t i = 0; i < in.times.size(); ++i) {
    last = std::max(last, in.times[i]);
    if (!tops[i].empty()) top = std::max(top, tops[i].back());
    if (!in.reserved_mb.empty()) top = std::max(top, in.reserved_mb[i]);
  }
  int lanes = 0;
  for (const MemorySpan& span : spans) {
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
  const AxisUnit time_unit = in.timed ? AxisUnit::kMilliseconds : AxisUnit::kEvents;

  std::ostringstream svg;
  svg << "<svg class=\"chart memory-chart\" width=\"" << Px(kWidth) << "\" height=\"" << Px(height)
      << "\" viewBox=\"0 0 " << Px(kWidth) << " " << Px(height) << "\" role=\"img\" aria-label=\""
      << EscapeHtml(in.aria_label) << "\">\n";
  std::vector<LegendEntry> legend = in.layers;
  if (!in.reserved_mb.empty()) legend.push_back({"fill-reserved", "reserved"});
  for (const char* phase : kPhases) {
    if (!in.phases_in_legend) break;
    for (const MemorySpan& span : spans) {
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

  if (!in.times.empty()) {
    // Memory holds its level until the next point: steps, not slopes.
    const auto steps = [&](auto&& level, bool backwards) {
      std::vector<std::pair<double, double>> corners;
      for (std::size_t i = 0; i < in.times.size(); ++i) {
        if (i > 0) corners.emplace_back(x(in.times[i]), y(level(i - 1)));
        corners.emplace_back(x(in.times[i]), y(level(i)));
      }
      if (backwards) std::reverse(corners.begin(), corners.end());
      std::ostringstream points;
      for (const auto& corner : corners)
        points << Px(corner.first) << "," << Px(corner.second) << " ";
      return points.str();
    };
    for (std::size_t layer = 0; layer < in.layers.size(); ++layer) {
      const auto upper = [&](std::size_t i) { return tops[i][layer]; };
      const auto lower = [&](std::size_t i) { return layer == 0 ? 0.0 : tops[i][layer - 1]; };
      svg << "<polygon class=\"" << in.layer_classes[layer] << "\" points=\"" << steps(upper, false)
          << steps(lower, true) << "\"><title>" << EscapeHtml(in.layer_titles[layer])
          << "</title></polygon>\n";
    }
    if (!in.reserved_mb.empty()) {
      svg << "<polyline class=\"reserved\" points=\""
          << steps([&](std::size_t i) { return in.reserved_mb[i]; }, false)
          << "\"><title>reserved by the allocator's segments</title></polyline>\n";
    }
  }

  for (const OutOfMemory& oom : ooms) {
    svg << "<g><title>"
        << EscapeHtml("out of memory: " + FormatNumber(oom.requested_mb) + " MB requested, " +
                      FormatNumber(oom.device_free_mb) + " MB free on the device")
        << "</title><line class=\"oom\" x1=\"" << Px(x(oom.time_ms)) << "\" x2=\""
        << Px(x(oom.time_ms)) << "\" y1=\"" << Px(plot_top) << "\" y2=\"" << Px(plot_bottom)
        << "\"/><text class=\"oom\" x=\"" << Px(x(oom.time_ms) - 4) << "\" y=\""
        << Px(plot_top + 12) << "\" text-anchor=\"end\">OOM</text></g>\n";
  }

  const double peak_x = x(in.peak_ms);
  const bool label_left = peak_x > (kPlotLeft + kPlotRight) / 2;
  svg << "<g><title>" << EscapeHtml(in.peak_title) << "</title><line class=\"peak\" x1=\""
      << Px(peak_x) << "\" x2=\"" << Px(peak_x) << "\" y1=\"" << Px(plot_top) << "\" y2=\""
      << Px(plot_bottom) << "\"/><circle class=\"peak\" cx=\"" << Px(peak_x) << "\" cy=\""
      << Px(y(in.peak_mb)) << "\" r=\"4\"/><text class=\"peak\" x=\""
      << Px(peak_x + (label_left ? -8 : 8)) << "\" y=\""
      << Px(std::max(plot_top + 12, y(in.peak_mb) - 8)) << "\" text-anchor=\""
      << (label_left ? "end" : "start") << "\">" << EscapeHtml(in.peak_label) << "</text></g>\n";

  const auto lane_top = [&](int lane) { return lanes_top + lane * (kLaneHeight + kLaneGap); };
  if (lanes > 0) {
    svg << "<text class=\"lane\" x=\"" << Px(kPlotLeft - 6) << "\" y=\"" << Px(lane_top(0) + 13)
        << "\" text-anchor=\"end\">phase</text>";
  }
  if (lanes > 1) {
    svg << "<text class=\"lane\" x=\"" << Px(kPlotLeft - 6) << "\" y=\"" << Px(lane_top(1) + 13)
        << "\" text-anchor=\"end\">modules</text>\n";
  }
  for (const MemorySpan& span : spans) {
    const bool phase = span.kind == MemorySpan::Kind::kPhase;
    const int lane = phase ? 0 : 1 + std::min(span.depth, kModuleLanes - 1);
    const double left = x(span.start_ms);
    const double width = std::max(1.0, x(span.end_ms) - left);
    const std::string fill = phase                     ? PhaseClass(span.label)
                             : span.label == in.holder ? "fill-holder"
                                                       : "fill-module";
    svg << "<g><title>"
        << EscapeHtml(span.label + ": " + FormatNumber(span.start_ms) + " to " +
                      FormatNumber(span.end_ms) + (in.timed ? " ms" : ""))
        << "</title><rect class=\"" << fill << "\" x=\"" << Px(left) << "\" y=\""
        << Px(lane_top(lane)) << "\" width=\"" << Px(width) << "\" height=\"" << Px(kLaneHeight)
        << "\"/>";
    const auto fits = static_cast<std::size_t>((width - 6) / kLabelCharWidth);
    if ((!phase || !in.phases_in_legend) && fits >= 4) {
      svg << "<text class=\"span\" x=\"" << Px(left + 3) << "\" y=\"" << Px(lane_top(lane) + 13)
          << "\">" << EscapeHtml(TruncateLeft(span.label, fits)) << "</text>";
    }
    svg << "</g>\n";
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace

std::string RenderMemoryChartSvg(const MemoryHistory& history, const MemoryPeak& peak) {
  ChartInput in;
  in.layers = {{"fill-allocated", "allocated"}};
  in.layer_classes = {"allocated"};
  in.layer_titles = {"allocated: the highest in each stretch of the history"};
  for (const MemoryPoint& point : history.timeline) {
    in.times.push_back(point.time_ms);
    in.layer_mb.push_back({point.allocated_mb});
    in.reserved_mb.push_back(point.reserved_mb);
  }
  in.spans = &history.spans;
  in.ooms = &history.ooms;
  in.timed = history.timed;
  in.aria_label =
      "Allocated and reserved memory over the history, peak " + FormatNumber(peak.mb) + " MB";
  in.peak_ms = peak.time_ms;
  in.peak_mb = peak.mb;
  in.peak_label = "peak " + FormatNumber(peak.mb) + " MB";
  in.peak_title = "peak: " + FormatNumber(peak.mb) + " MB allocated, " +
                  FormatNumber(peak.reserved_mb) + " MB reserved";
  return RenderChart(in);
}

std::string RenderStepMemoryChartSvg(const StepMemoryTimeline& timeline, const MemoryPeak& peak) {
  ChartInput in;
  for (const std::string& category : timeline.categories) {
    in.layers.push_back({"layer-" + category, category});
    in.layer_classes.push_back("layer-" + category);
    in.layer_titles.push_back(category + ": live at the highest moment of each stretch");
  }
  for (const StepMemoryPoint& point : timeline.points) {
    in.times.push_back(point.time_ms);
    in.layer_mb.push_back(point.mb);
    in.layer_mb.back().resize(timeline.categories.size());
  }
  in.spans = &timeline.spans;
  in.aria_label =
      "Live memory over the step of the peak, by category, peak " + FormatNumber(peak.mb) + " MB";
  in.peak_ms = peak.time_ms;
  in.peak_mb = peak.mb;
  in.holder = peak.path;
  in.phases_in_legend = false;
  const std::string held = peak.path.empty() ? "" : ", held most by " + peak.path;
  in.peak_label = "peak " + FormatNumber(peak.mb) + " MB" + held;
  in.peak_title = "peak: " + FormatNumber(peak.mb) + " MB live" +
                  (peak.phase.empty() ? "" : " in the " + peak.phase) + held;
  return RenderChart(in);
}

}  // namespace advisor
