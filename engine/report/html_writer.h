// report.html: one self-contained page (inline CSS and SVG, no scripts, no network) with the
// step breakdown, the bisection path, per-module times and the fix benchmarks as charts.
#pragma once

#include <string>

#include "engine/model/run_report.h"

namespace advisor {

// All text from the model file is HTML-escaped; a Content-Security-Policy forbids scripts and
// any fetch, so even a writer bug cannot make the page reach the network.
std::string ReportToHtml(const RunReport& report);

}  // namespace advisor
