// Text from a model file or a rule (module paths, op names, messages, a worker's stderr) made safe
// to print on a terminal and to put into report.md and report.html. Such text can carry escape
// sequences that retitle or clear a terminal ("\x1b]0;...\x07", "\x1b[2J"), a carriage return that
// makes a line overwrite itself, NUL bytes and invalid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace advisor {

// Valid UTF-8 without control characters but newline and tab: bytes that are not valid UTF-8
// become U+FFFD; every other C0 control, DEL and the C1 controls (U+0080..U+009F, which some
// terminals obey too) become the four characters "\xNN", and the bidi controls (U+061C, U+200E,
// U+200F, U+202A..U+202E, U+2066..U+2069) and the line and paragraph separators (U+2028,
// U+2029) the six characters "\uNNNN", so the text still shows what was there.
std::string PrintableText(std::string_view text);

// PrintableText for one line: newline and tab are escaped as well. Untrusted text goes through it
// wherever it is printed inside a line of advisor's own: a newline in a module name or a rule's
// message would otherwise start a line of its own ("finding [high] ...") that advisor never wrote.
std::string PrintableLine(std::string_view text);

}  // namespace advisor
