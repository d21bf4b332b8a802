// Live memory as inline SVG for report.html: an allocator snapshot's history (the allocated
// memory as an area, the reserved memory as a dashed line above it) or a bisection's step (its
// categories stacked), the peak and any OOM marked, and under the plot the ranges on the same time
// axis: a lane of phases and a lane per module depth (the top three). One drawing for both.
// Colours and fonts come from the page's CSS classes (html_style.cpp), the axes and legend from
// svg_parts.h.
#pragma once

#include <string>

#include "engine/model/memory.h"

namespace advisor {

// An <svg> element; all text HTML-escaped.
std::string RenderMemoryChartSvg(const MemoryHistory& history, const MemoryPeak& peak);

// A bisection's: live memory over the step of its peak, stacked by category (parameters at the
// bottom), no reserved line (the reports carry requested bytes), the peak's holder named beside
// the peak and its spans highlighted in the instances' lanes.
std::string RenderStepMemoryChartSvg(const StepMemoryTimeline& timeline, const MemoryPeak& peak);

}  // namespace advisor
