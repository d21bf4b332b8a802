#include "engine/util/printable_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "engine/util/printable_stream.h"

namespace advisor {
namespace {

TEST(PrintableText, EscapesControlCharactersAndKeepsLineBreaks) {
  EXPECT_EQ(PrintableText("\x1b]0;pwned\x07\x1b[2J\rtab\tline\n"),
            "\\x1b]0;pwned\\x07\\x1b[2J\\x0dtab\tline\n");
  EXPECT_EQ(PrintableText(std::string("a\0b\x7f", 4)), "a\\x00b\\x7f");
  EXPECT_EQ(PrintableText("\xc2\x9b" "31m"), "\\x9b31m") << "C1 controls too";
  EXPECT_EQ(PrintableLine("one\ntwo\tthree"), "one\\x0atwo\\x09three");
}

// "U+202E" shows what follows it backwards ("report\u202etxt.exe" reads "reportexe.txt"), and
// U+2028 breaks the line in some terminals: both are escaped as the bidi marks and isolates are.
TEST(PrintableText, EscapesCharactersThatReorderOrBreakTheLine) {
  EXPECT_EQ(PrintableText("report\u202etxt.exe"), "report\\u202etxt.exe");
  EXPECT_EQ(PrintableText("a\u2028b\u2029c"), "a\\u2028b\\u2029c");
  EXPECT_EQ(PrintableText("\u200e\u200f\u061c\u202a\u202d\u2066\u2069"),
            "\\u200e\\u200f\\u061c\\u202a\\u202d\\u2066\\u2069");
  EXPECT_EQ(PrintableText("\u2027\u202f\u2065\u206a"), "\u2027\u202f\u2065\u206a")
      << "their neighbours stay";
}

TEST(PrintableText, ReplacesInvalidUtf8AndKeepsValidText) {
  const std::string replacement = "\xef\xbf\xbd";
  EXPECT_EQ(PrintableText("caf\xc3\xa9 \xce\xbc \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xce\xbc \xf0\x9f\x98\x80");
  EXPECT_EQ(PrintableText("\xff"), replacement);
  EXPECT_EQ(PrintableText("\xc3"), replacement) << "truncated";
  EXPECT_EQ(PrintableText("\xc0\xaf"), replacement + replacement) << "overlong";
  EXPECT_EQ(PrintableText("\xed\xa0\x80"), replacement + replacement + replacement)
      << "a surrogate";
  EXPECT_EQ(PrintableText("\xf4\x90\x80\x80"),
            replacement + replacement + replacement + replacement)
      << "beyond U+10FFFF";
}

TEST(PrintableStream, GuardsEveryLineWrittenToTheStream) {
  std::ostringstream terminal;
  {
    const PrintableStream guard(terminal);
    terminal << "finding [high] evil: \x1b]0;pwned\x07\n" << "partial \x1b[2J" << std::flush;
    terminal << "rest\n";
  }
  EXPECT_EQ(terminal.str(), "finding [high] evil: \\x1b]0;pwned\\x07\npartial \\x1b[2Jrest\n");
  terminal << "\x1b";  // the guard is gone: the stream writes through again
  EXPECT_EQ(terminal.str().back(), '\x1b');
}

}  // namespace
}  // namespace advisor
