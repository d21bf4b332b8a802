#include "engine/rules/rule_diagnostic.h"

namespace advisor {

std::string RuleDiagnostic::ToString() const {
  if (file.empty()) return message;
  if (line <= 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ": " + message;
}

}  // namespace advisor
