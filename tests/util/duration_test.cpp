#include "engine/util/duration.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

using std::chrono::seconds;

TEST(ParseDuration, ReadsUnitsInOrderAndBareSeconds) {
  EXPECT_EQ(ParseDuration("90"), seconds(90));
  EXPECT_EQ(ParseDuration("90s"), seconds(90));
  EXPECT_EQ(ParseDuration("5m"), seconds(300));
  EXPECT_EQ(ParseDuration("1h30m"), seconds(5400));
  EXPECT_EQ(ParseDuration("2m30s"), seconds(150));
  EXPECT_EQ(ParseDuration("1h0m5s"), seconds(3605));
}

TEST(ParseDuration, RefusesWhatIsNotClear) {
  for (const char* text : {"", "0", "0s", "m", "5x", "5 m", "-5m", "1.5m", "5m1h", "5m5m",
                           "1h30", "30s5", "99999999999999999999", "400d"}) {
    EXPECT_EQ(ParseDuration(text), std::nullopt) << text;
  }
}

TEST(FormatDuration, ShowsTwoUnitsAtMost) {
  EXPECT_EQ(FormatDuration(seconds(45)), "45s");
  EXPECT_EQ(FormatDuration(seconds(125)), "2m05s");
  EXPECT_EQ(FormatDuration(seconds(3725)), "1h02m");
  EXPECT_EQ(FormatDuration(std::chrono::duration<double>(0.4)), "0s");
  EXPECT_EQ(FormatDuration(std::chrono::duration<double>(-3)), "0s");
}

}  // namespace
}  // namespace advisor
