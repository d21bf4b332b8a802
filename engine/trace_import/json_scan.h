// The JSON tokens the trace reader needs, on one buffer [p, end). Every function stops at `end`
// and never reads past it; a malformed token returns nullptr, and the caller names the offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace advisor::json_scan {

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

const char* SkipSpace(const char* p, const char* end);

// The first '"' or '\\' at or after p, or end.
const char* FindQuoteOrBackslash(const char* p, const char* end);

// `p` just after a string's opening quote: the position of its closing quote, or nullptr when
// the buffer ends first. `escaped` tells whether the body holds a backslash escape.
const char* FindStringEnd(const char* p, const char* end, bool& escaped);

// A string body with escapes decoded into UTF-8; false on a malformed escape.
bool Unescape(std::string_view body, std::string& out);

// Nested arrays and objects deeper than this are refused, so that no input can exhaust a stack.
inline constexpr int kMaxDepth = 64;

// `p` at the first character of a value: the position after it, or nullptr when it is malformed,
// nested deeper than kMaxDepth, or not complete before `end`.
const char* SkipValue(const char* p, const char* end);

// A JSON number that must be an integer (a fraction or exponent is refused): the position after
// it, or nullptr.
const char* ParseInteger(const char* p, const char* end, std::int64_t& value);

// A JSON number of microseconds, as Chrome traces write times ("ts": 1712195495519689.047), as
// whole nanoseconds (rounded to the nearest): the position after it, or nullptr when it is not a
// number or out of range.
const char* ParseMicroseconds(const char* p, const char* end, std::int64_t& ns);

}  // namespace advisor::json_scan
