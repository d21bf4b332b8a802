#include "engine/trace_import/json_scan.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace advisor::json_scan {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ReadHex4(const char* p, const char* end, unsigned& value) {
  if (end - p < 4) return false;
  value = 0;
  for (int i = 0; i < 4; ++i) {
    const int digit = HexValue(p[i]);
    if (digit < 0) return false;
    value = value * 16 + static_cast<unsigned>(digit);
  }
  return true;
}

void AppendUtf8(unsigned code_point, std::string& out) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// The literal `word` (true, false, null) at p.
const char* SkipLiteral(const char* p, const char* end, const char* word) {
  const std::size_t length = std::strlen(word);
  if (static_cast<std::size_t>(end - p) < length || std::memcmp(p, word, length) != 0) {
    return nullptr;
  }
  return p + length;
}

// The digits of a JSON number's grammar, without converting: -?int(.frac)?(e[+-]?exp)?
const char* SkipNumber(const char* p, const char* end) {
  if (p < end && *p == '-') ++p;
  if (p == end || !IsDigit(*p)) return nullptr;
  while (p < end && IsDigit(*p)) ++p;
  if (p < end && *p == '.') {
    ++p;
    if (p == end || !IsDigit(*p)) return nullptr;
    while (p < end && IsDigit(*p)) ++p;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    if (p == end || !IsDigit(*p)) return nullptr;
    while (p < end && IsDigit(*p)) ++p;
  }
  return p;
}

}  // namespace

bool Unescape(std::string_view body, std::string& out) {
  out.clear();
  out.reserve(body.size());
  const char* p = body.data();
  const char* end = p + body.size();
  while (p < end) {
    if (*p != '\\') {
      out += *p++;
      continue;
    }
    if (++p == end) return false;
    switch (*p++) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        unsigned code = 0;
        if (!ReadHex4(p, end, code)) return false;
        p += 4;
        if (code >= 0xD800 && code <= 0xDBFF) {
          unsigned low = 0;
          if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && ReadHex4(p + 2, end, low) &&
              low >= 0xDC00 && low <= 0xDFFF) {
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            p += 6;
          } else {
            code = 0xFFFD;  // a lone surrogate: replaced, as the report does with invalid UTF-8
          }
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          code = 0xFFFD;
        }
        AppendUtf8(code, out);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

const char* SkipValue(const char* p, const char* end) {
  // Iterative: the only state is the stack of open containers.
  enum class Expect { kValue, kKey, kAfterValue };
  char open[kMaxDepth];
  int depth = 0;
  Expect expect = Expect::kValue;
  while (true) {
    p = SkipSpace(p, end);
    if (p == end) return nullptr;
    switch (expect) {
      case Expect::kValue: {
        const char c = *p;
        if (c == '{' || c == '[') {
          if (depth == kMaxDepth) return nullptr;
          open[depth++] = c;
          p = SkipSpace(p + 1, end);
          if (p == end) return nullptr;
          if (*p == (c == '{' ? '}' : ']')) {  // an empty container
            --depth;
            ++p;
            expect = Expect::kAfterValue;
          } else {
            expect = c == '{' ? Expect::kKey : Expect::kValue;
          }
          break;
        }
        if (c == '"') {
          bool escaped = false;
          p = FindStringEnd(p + 1, end, escaped);
          if (p == nullptr) return nullptr;
          ++p;
        } else if (c == 't') {
          p = SkipLiteral(p, end, "true");
        } else if (c == 'f') {
          p = SkipLiteral(p, end, "false");
        } else if (c == 'n') {
          p = SkipLiteral(p, end, "null");
        } else {
          p = SkipNumber(p, end);
        }
        if (p == nullptr) return nullptr;
        expect = Expect::kAfterValue;
        break;
      }
      case Expect::kKey: {
        if (*p != '"') return nullptr;
        bool escaped = false;
        p = FindStringEnd(p + 1, end, escaped);
        if (p == nullptr) return nullptr;
        p = SkipSpace(p + 1, end);
        if (p == end || *p != ':') return nullptr;
        ++p;
        expect = Expect::kValue;
        break;
      }
      case Expect::kAfterValue: {
        const char inner = open[depth - 1];
        if (*p == ',') {
          ++p;
          expect = inner == '{' ? Expect::kKey : Expect::kValue;
        } else if (*p == (inner == '{' ? '}' : ']')) {
          --depth;
          ++p;
        } else {
          return nullptr;
        }
        break;
      }
    }
    if (expect == Expect::kAfterValue && depth == 0) return p;
  }
}

const char* ParseInteger(const char* p, const char* end, std::int64_t& value) {
  const bool negative = p < end && *p == '-';
  const char* digits = negative ? p + 1 : p;
  const char* q = digits;
  std::uint64_t magnitude = 0;
  while (q < end && IsDigit(*q)) {
    const unsigned digit = static_cast<unsigned>(*q - '0');
    if (magnitude > (UINT64_MAX - digit) / 10) return nullptr;
    magnitude = magnitude * 10 + digit;
    ++q;
  }
  if (q == digits) return nullptr;
  if (q < end && (*q == '.' || *q == 'e' || *q == 'E')) return nullptr;
  if (negative) {
    if (magnitude > static_cast<std::uint64_t>(INT64_MAX) + 1) return nullptr;
    value = magnitude == static_cast<std::uint64_t>(INT64_MAX) + 1
                ? INT64_MIN
                : -static_cast<std::int64_t>(magnitude);
  } else {
    // Ids above INT64_MAX (seen in some traces) keep their bits: only equality matters for them.
    value = static_cast<std::int64_t>(magnitude);
  }
  return q;
}

const char* ParseMicroseconds(const char* p, const char* end, std::int64_t& ns) {
  const char* start = p;
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  // Times are at most 16 integer digits of microseconds (years past the epoch in ns fit int64).
  constexpr std::int64_t kMaxMicros = INT64_MAX / 1000 - 1;
  std::int64_t micros = 0;
  const char* digits = p;
  while (p < end && IsDigit(*p)) {
    if (micros > kMaxMicros / 10) return nullptr;
    micros = micros * 10 + (*p - '0');
    ++p;
  }
  if (p == digits) return nullptr;
  std::int64_t fraction_ns = 0;
  if (p < end && *p == '.') {
    ++p;
    const char* fraction = p;
    int scale = 100;
    while (p < end && IsDigit(*p)) {
      if (scale > 0) {
        fraction_ns += (*p - '0') * scale;
        scale /= 10;
      } else if (p == fraction + 3 && *p >= '5') {
        ++fraction_ns;  // round at the first digit below a nanosecond
      }
      ++p;
    }
    if (p == fraction) return nullptr;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    // Rare (a float printed by Python); exact enough through double for the ranges traces use.
    const char* after = SkipNumber(start, end);
    if (after == nullptr) return nullptr;
    const std::string text(start, after);
    const double value = std::strtod(text.c_str(), nullptr) * 1000.0;
    if (!std::isfinite(value) || std::fabs(value) > 9.2e18) return nullptr;
    ns = static_cast<std::int64_t>(std::llround(value));
    return after;
  }
  const std::int64_t total = micros * 1000 + fraction_ns;
  ns = negative ? -total : total;
  return p;
}

}  // namespace advisor::json_scan
