// Text from a model or a rule on its way to the terminal and the reports: whatever the bytes,
// the result is valid UTF-8 without a control character but newline and tab, and printing it
// again changes nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/util/printable_text.h"

namespace {

// Valid UTF-8 holding no C0 control but \n and \t, no DEL and no C1 control.
bool IsPrintable(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    std::size_t length = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3
                       : (lead & 0xF8) == 0xF0 ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    if (lead < 0x20 && lead != '\n' && lead != '\t') return false;
    if (lead == 0x7F) return false;
    if (lead == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) return false;  // C1
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string printable = advisor::PrintableText(text);
  if (!IsPrintable(printable) || advisor::PrintableText(printable) != printable) std::abort();
  if (advisor::PrintableLine(text).find('\n') != std::string::npos) std::abort();
  return 0;
}
