// diff.json: a ReportDiff as data, documented field by field in docs/diff.md.
#pragma once

#include <string>

#include "engine/diff/report_diff.h"

namespace advisor {

inline constexpr int kDiffSchemaVersion = 1;

// Indented text; strings from the reports (paths, ops, messages) with invalid UTF-8 made U+FFFD.
std::string DiffToJsonText(const ReportDiff& diff);

}  // namespace advisor
