// report.json: the serialisation of a RunReport and the contract that tools and tests read.
// Every field is documented, with its unit, in docs/report-schema.md; bump kReportSchemaVersion
// when a field changes meaning or disappears (adding fields keeps the version).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/model/run_report.h"

namespace advisor {

inline constexpr int kReportSchemaVersion = 1;

// Values that were not measured are null, never 0.
nlohmann::json ReportToJson(const RunReport& report);

// ReportToJson as indented text. Strings from the model file may hold invalid UTF-8; those bytes
// become U+FFFD instead of making the dump throw.
std::string ReportToJsonText(const RunReport& report);

}  // namespace advisor
