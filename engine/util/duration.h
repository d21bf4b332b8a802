// Durations as people type and read them on the command line and in progress lines.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace advisor {

// "90", "90s", "5m", "1h30m", "2m30s": whole hours, minutes and seconds, each unit at most once
// and in that order; a bare number is seconds. nullopt for anything else, and for 0.
std::optional<std::chrono::seconds> ParseDuration(const std::string& text);

// 45 -> "45s", 125 -> "2m05s", 3725 -> "1h02m": two units at most, rounded to whole seconds.
std::string FormatDuration(std::chrono::duration<double> duration);

}  // namespace advisor
