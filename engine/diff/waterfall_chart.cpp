#include "engine/diff/waterfall_chart.h"

#include <algorithm>

#include "engine/diff/diff_text.h"
#include "engine/report/format.h"

namespace advisor {

BarChart WaterfallChart(const std::string& title, double before_ms,
                        const std::vector<WaterfallStep>& steps, double after_ms) {
  BarChart chart;
  chart.title = title;
  chart.legend = {{"fill-rejected", "longer"}, {"fill-verified", "shorter"}};
  chart.rows.push_back({"before",
                        {{before_ms, "fill-baseline"}},
                        FormatNumber(before_ms) + " ms",
                        "the step before",
                        false});
  double level = before_ms;
  for (const WaterfallStep& step : steps) {
    const double next = level + step.delta_ms;
    // A bar starts at the lower of the two levels; a level below 0 (parts of different windows)
    // is drawn from 0.
    const double low = std::max(0.0, std::min(level, next));
    const double high = std::max(0.0, std::max(level, next));
    BarRow row;
    row.label = step.label;
    row.segments = {{low, "fill-gap"},
                    {high - low, step.delta_ms > 0 ? "fill-rejected" : "fill-verified"}};
    row.value_text = SignedMs(step.delta_ms);
    row.tooltip = step.tooltip.empty() ? step.label : step.tooltip;
    chart.rows.push_back(std::move(row));
    level = next;
  }
  chart.rows.push_back({"after",
                        {{after_ms, "fill-candidate"}},
                        FormatNumber(after_ms) + " ms",
                        "the step after",
                        false});
  return chart;
}

}  // namespace advisor
