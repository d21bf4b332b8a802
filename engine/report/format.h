// How the human-facing writers (Markdown, HTML) print numbers, so that both say the same value the
// same way. Units are left to the caller: table headers carry them, prose appends them.
#pragma once

#include <string>
#include <vector>

namespace advisor {

// What a person reads where a value was not measured: never a 0 that looks like a measurement.
inline constexpr char kNotMeasured[] = "not measured";

// Enough digits to compare, none that are noise, never an exponent: 1234.6 -> "1235",
// 123.44 -> "123.4", 12.345 -> "12.35", 0.5 -> "0.500", 0.01234 -> "0.012", 0.0004 -> "<0.001".
std::string FormatNumber(double value);

// A fraction 0..1 as a percentage: 0.4567 -> "45.7%", below 0.1% but above 0 -> "<0.1%".
std::string FormatShare(double fraction);

// A ratio of two times: 1.316 -> "1.32×".
std::string FormatSpeedup(double ratio);

// Small differences and tolerances, where digits after the exponent matter: 3.1e-06.
std::string FormatScientific(double value);

// Bytes with binary units: 512 -> "512 B", 1536 -> "1.50 KiB", 3.2e9 -> "2.98 GiB".
std::string FormatBytes(double bytes);

// A tensor's shape: {32, 1, 256, 256} -> "32×1×256×256"; {} (a scalar) -> "scalar".
std::string FormatShape(const std::vector<long long>& shape);

// Seconds of wall time: 83.27 -> "83.3 s".
std::string FormatSeconds(double seconds);

}  // namespace advisor
