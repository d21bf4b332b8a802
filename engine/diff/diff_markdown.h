// diff.md: a ReportDiff for a person reading a terminal or a code-review page.
#pragma once

#include <string>

#include "engine/diff/report_diff.h"

namespace advisor {

std::string DiffToMarkdown(const ReportDiff& diff);

}  // namespace advisor
