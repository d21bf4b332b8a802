// Escaping for text placed in HTML and inline SVG, both in element content and in quoted
// attribute values. Module paths, op names and messages come from untrusted model files.
#pragma once

#include <string>

namespace advisor {

// & < > " ' become character references; control characters and invalid UTF-8 are made
// printable (printable_text.h), keeping newlines and tabs for <pre>; everything else is copied.
std::string EscapeHtml(const std::string& text);

}  // namespace advisor
