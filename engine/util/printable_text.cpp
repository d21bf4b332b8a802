#include "engine/util/printable_text.h"

#include <cstdint>

#include "engine/util/printf.h"

namespace advisor {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at `text[i]` and its code point; 0 when it is not one
// (a stray continuation byte, a truncated sequence, an overlong form, a surrogate, beyond
// U+10FFFF).
std::size_t DecodeUtf8(std::string_view text, std::size_t i, std::uint32_t& code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length;
  std::uint32_t minimum;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2;
    minimum = 0x80;
    code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    minimum = 0x800;
    code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    minimum = 0x10000;
    code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3F);
  }
  const bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
  if (code_point < minimum || surrogate || code_point > 0x10FFFF) return 0;
  return length;
}

bool IsControl(std::uint32_t code_point) {
  return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F);
}

// Characters that are not controls to UTF-8 but still move text on the screen: the bidi marks,
// embeddings, overrides and isolates reorder what follows them ("U+202E" shows "exe.txt" as
// "txt.exe"), and the line and paragraph separators break a line in some terminals and viewers.
bool MovesText(std::uint32_t code_point) {
  return code_point == 0x061C || code_point == 0x200E || code_point == 0x200F ||
         (code_point >= 0x202A && code_point <= 0x202E) ||
         (code_point >= 0x2066 && code_point <= 0x2069) || code_point == 0x2028 ||
         code_point == 0x2029;
}

std::string Printable(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    std::uint32_t code_point = 0;
    const std::size_t length = DecodeUtf8(text, i, code_point);
    if (length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const bool kept = keep_line_breaks && (code_point == '\n' || code_point == '\t');
    if (IsControl(code_point) && !kept) {
      out += Printf("\\x%02x", static_cast<unsigned>(code_point));
    } else if (MovesText(code_point)) {
      out += Printf("\\u%04x", static_cast<unsigned>(code_point));
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

}  // namespace

std::string PrintableText(std::string_view text) { return Printable(text, true); }

std::string PrintableLine(std::string_view text) { return Printable(text, false); }

}  // namespace advisor
