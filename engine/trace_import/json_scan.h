// The JSON tokens the trace reader needs, on one buffer [p, end). Every function stops at `end`
// and never reads past it; a malformed token returns nullptr, and the caller names the offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/json_input/json_limits.h"

namespace advisor::json_scan {

// SkipSpace and FindQuoteOrBackslash run between every two tokens: inline, they cost no call.

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline const char* SkipSpace(const char* p, const char* end) {
  while (p < end && IsSpace(*p)) ++p;
  return p;
}

// The first '"' or '\\' at or after p, or end.
inline const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int mask = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// `p` just after a string's opening quote: the position of its closing quote, or nullptr when
// the buffer ends first. `escaped` tells whether the body holds a backslash escape.
inline const char* FindStringEnd(const char* p, const char* end, bool& escaped) {
  escaped = false;
  while (true) {
    p = FindQuoteOrBackslash(p, end);
    if (p >= end) return nullptr;
    if (*p == '"') return p;
    escaped = true;
    p += 2;  // the escaped character cannot end the string
  }
}

// A string body with escapes decoded into UTF-8; false on a malformed escape.
bool Unescape(std::string_view body, std::string& out);

// Nested arrays and objects deeper than this are refused, so that no input can exhaust a stack:
// the bound of every JSON advisor reads.
inline constexpr int kMaxDepth = static_cast<int>(kMaxJsonDepth);

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
