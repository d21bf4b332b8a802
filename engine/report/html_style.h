// The stylesheet that report.html inlines. Kept apart from the writer so layout and colours can be
// tuned without touching the code that emits the document.
#pragma once

namespace advisor {

extern const char kReportCss[];

}  // namespace advisor
