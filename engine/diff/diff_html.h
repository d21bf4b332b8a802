// diff.html: one self-contained page (inline CSS and SVG, no scripts, no network) with the step's
// change as a waterfall by phase and by module, and the tables of diff.md.
#pragma once

#include <string>

#include "engine/diff/report_diff.h"

namespace advisor {

std::string DiffToHtml(const ReportDiff& diff);

}  // namespace advisor
