// Live memory over an allocator snapshot's history as inline SVG for report.html: the allocated
// memory as an area, the reserved memory as a dashed line above it, the peak and any OOM marked,
// and under the plot the record_function ranges on the same time axis: a lane of phases
// (forward, backward, optimizer) and a lane per module depth (the top three). Colours and fonts
// come from the page's CSS classes (html_style.cpp), the axes and legend from svg_parts.h.
#pragma once

#include <string>

#include "engine/model/memory.h"

namespace advisor {

// An <svg> element; all text HTML-escaped.
std::string RenderMemoryChartSvg(const MemoryHistory& history, const MemoryPeak& peak);

}  // namespace advisor
