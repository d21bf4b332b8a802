// report.md: the report for a person reading a terminal or a code-review page.
#pragma once

#include <string>

#include "engine/model/run_report.h"

namespace advisor {

// GitHub-flavoured Markdown. Text from the model file (module paths, op names, source lines) is
// escaped, so it can neither break a table nor inject HTML into a renderer.
std::string ReportToMarkdown(const RunReport& report);

}  // namespace advisor
