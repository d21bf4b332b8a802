// One piece of advice a rule produced from measured facts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace advisor {

enum class Severity { kLow, kMedium, kHigh };

struct Finding {
  std::string rule;      // the rule's id
  Severity severity = Severity::kLow;
  std::string path;      // module instance path, "" when the finding is about the whole step
  std::string op;        // op name, "" when none
  std::string message;   // what is wrong and what to do, one or two sentences
  std::string evidence;  // the measured numbers that made the rule fire
  std::string recipe;    // id of the recipe that fixes it, "" when none exists
  std::optional<double> expected_gain_ms;  // per step, where the rule can estimate it
  // The torch version the recipe needs, where that is newer than the run's: the advice does not
  // fit this run as it is (FitFindingsToTorch). "" when it fits or nothing is known.
  std::string needs_torch;
};

// "high", "medium", "low": the spelling rules use and report.json writes.
const char* SeverityName(Severity severity);

// The inverse of SeverityName; nullopt for anything else (case matters).
std::optional<Severity> ParseSeverity(std::string_view name);

}  // namespace advisor
