#include "engine/rules/finding.h"

namespace advisor {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kHigh: return "high";
    case Severity::kMedium: return "medium";
    case Severity::kLow: return "low";
  }
  return "low";
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (Severity severity : {Severity::kHigh, Severity::kMedium, Severity::kLow}) {
    if (name == SeverityName(severity)) return severity;
  }
  return std::nullopt;
}

}  // namespace advisor
