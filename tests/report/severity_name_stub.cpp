// Stands in for advisor_rules' SeverityName() while engine/rules does not build a library yet
// (see CMakeLists.txt): the report writers need the names report.json documents.
#include "engine/rules/finding.h"

namespace advisor {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kHigh:
      return "high";
    case Severity::kMedium:
      return "medium";
    case Severity::kLow:
      return "low";
  }
  return "low";
}

}  // namespace advisor
