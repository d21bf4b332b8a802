#include "engine/report/format.h"

#include <gtest/gtest.h>

#include <cmath>

namespace advisor {
namespace {

TEST(Format, NumbersGetFewerDecimalsAsTheyGrow) {
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(1234.6), "1235");
  EXPECT_EQ(FormatNumber(123.44), "123.4");
  EXPECT_EQ(FormatNumber(12.345), "12.35");
  EXPECT_EQ(FormatNumber(1.2), "1.20");
  EXPECT_EQ(FormatNumber(0.5), "0.500");
  EXPECT_EQ(FormatNumber(0.01234), "0.012");
  EXPECT_EQ(FormatNumber(0.0012), "0.001");
  EXPECT_EQ(FormatNumber(0.0004), "<0.001");
  EXPECT_EQ(FormatNumber(-2.5), "-2.50");
  EXPECT_EQ(FormatNumber(std::nan("")), "n/a");
}

TEST(Format, SharesArePercentages) {
  EXPECT_EQ(FormatShare(0.4567), "45.7%");
  EXPECT_EQ(FormatShare(1), "100.0%");
  EXPECT_EQ(FormatShare(0), "0.0%");
  EXPECT_EQ(FormatShare(0.0004), "<0.1%");
}

TEST(Format, SpeedupsBytesAndSeconds) {
  EXPECT_EQ(FormatSpeedup(1.316), "1.32\u00d7");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(3.2e9), "2.98 GiB");
  EXPECT_EQ(FormatSeconds(83.27), "83.3 s");
}

}  // namespace
}  // namespace advisor
