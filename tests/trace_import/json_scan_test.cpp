#include "engine/trace_import/json_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace advisor::json_scan {
namespace {

const char* End(const std::string& text) { return text.data() + text.size(); }

TEST(JsonScan, FindsTheClosingQuotePastEscapes) {
  const std::string text = R"(a \"quoted\" \\ word" tail)";
  bool escaped = false;
  const char* close = FindStringEnd(text.data(), End(text), escaped);
  ASSERT_NE(close, nullptr);
  EXPECT_EQ(std::string(text.data(), close), R"(a \"quoted\" \\ word)");
  EXPECT_TRUE(escaped);
}

TEST(JsonScan, AStringWithoutItsQuoteDoesNotEnd) {
  const std::string text = R"(no end here \")";
  bool escaped = false;
  EXPECT_EQ(FindStringEnd(text.data(), End(text), escaped), nullptr);
}

TEST(JsonScan, UnescapesToUtf8IncludingSurrogatePairs) {
  std::string out;
  ASSERT_TRUE(Unescape(R"(tab\t quote\" e\u00e9 clef\ud834\udd1e)", out));
  EXPECT_EQ(out, "tab\t quote\" e\xc3\xa9 clef\xf0\x9d\x84\x9e");
  ASSERT_TRUE(Unescape(R"(lone\ud834 x)", out));
  EXPECT_EQ(out, "lone\xef\xbf\xbd x");  // U+FFFD
  EXPECT_FALSE(Unescape(R"(bad\q)", out));
  EXPECT_FALSE(Unescape(R"(short\u12)", out));
}

TEST(JsonScan, SkipsNestedValuesWholly) {
  const std::string text = R"({"a": [1, {"b": "}]"}, -2.5e3, true, null], "c": {}} rest)";
  const char* after = SkipValue(text.data(), End(text));
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(std::string(after), " rest");
}

TEST(JsonScan, RefusesMalformedValues) {
  for (const std::string text : {R"({"a" 1})", R"([1 2])", R"({"a": })", R"([1,])", "tru",
                                 "-", "1.", R"({"a": 1)", "[{]}", "01x"}) {
    const char* after = SkipValue(text.data(), End(text));
    EXPECT_TRUE(after == nullptr || after != End(text)) << text;
  }
}

TEST(JsonScan, RefusesNestingBeyondTheLimitInsteadOfRecursing) {
  const std::string deep = std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
  EXPECT_EQ(SkipValue(deep.data(), End(deep)), nullptr);
  const std::string limit = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_EQ(SkipValue(limit.data(), End(limit)), End(limit));
}

TEST(JsonScan, MicrosecondsBecomeRoundedNanoseconds) {
  const auto ns = [](const std::string& text) {
    std::int64_t value = 0;
    const char* after = ParseMicroseconds(text.data(), End(text), value);
    EXPECT_EQ(after, End(text)) << text;
    return value;
  };
  EXPECT_EQ(ns("1712195495519689.047"), 1712195495519689047);
  EXPECT_EQ(ns("12"), 12000);
  EXPECT_EQ(ns("0.5"), 500);
  EXPECT_EQ(ns("1.0004"), 1000);
  EXPECT_EQ(ns("1.0005"), 1001);
  EXPECT_EQ(ns("-3.25"), -3250);
  EXPECT_EQ(ns("1.5e3"), 1500000);
  std::int64_t value = 0;
  const std::string huge = "99999999999999999999";
  EXPECT_EQ(ParseMicroseconds(huge.data(), End(huge), value), nullptr);
  const std::string text = "abc";
  EXPECT_EQ(ParseMicroseconds(text.data(), End(text), value), nullptr);
}

TEST(JsonScan, IntegersKeepEveryBitAndRefuseFractions) {
  std::int64_t value = 0;
  const std::string big = "18446744073709551615";
  ASSERT_EQ(ParseInteger(big.data(), End(big), value), End(big));
  EXPECT_EQ(static_cast<std::uint64_t>(value), 18446744073709551615ull);
  const std::string negative = "-42";
  ASSERT_EQ(ParseInteger(negative.data(), End(negative), value), End(negative));
  EXPECT_EQ(value, -42);
  const std::string fraction = "4.5";
  EXPECT_EQ(ParseInteger(fraction.data(), End(fraction), value), nullptr);
  const std::string overflow = "184467440737095516160";
  EXPECT_EQ(ParseInteger(overflow.data(), End(overflow), value), nullptr);
}

}  // namespace
}  // namespace advisor::json_scan
