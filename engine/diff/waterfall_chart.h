// The waterfall of diff.html: the step before, each part's change as a bar that starts where the
// previous one ended (longer: red, shorter: green), the step after. Drawn by the report's bar
// chart (engine/report/svg_bar_chart.h), each change's bar offset by an unfilled segment.
#pragma once

#include <string>
#include <vector>

#include "engine/report/svg_bar_chart.h"

namespace advisor {

struct WaterfallStep {
  std::string label;
  double delta_ms = 0;
  std::string tooltip;
};

BarChart WaterfallChart(const std::string& title, double before_ms,
                        const std::vector<WaterfallStep>& steps, double after_ms);

}  // namespace advisor
