#include "engine/util/cpu_pressure.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace advisor {
namespace {

namespace fs = std::filesystem;

std::string Written(const std::string& name, const std::string& text) {
  const fs::path path = fs::path(::testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(CpuStallSeconds, ReadsTheSomeLinesTotal) {
  const std::string file =
      Written("pressure_ok", "some avg10=2.66 avg60=13.43 avg300=10.90 total=274074524\n"
                             "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
  ASSERT_TRUE(CpuStallSeconds(file).has_value());
  EXPECT_DOUBLE_EQ(*CpuStallSeconds(file), 274.074524);
}

TEST(CpuStallSeconds, NothingWhereTheKernelSaysNothingOrNonsense) {
  EXPECT_FALSE(CpuStallSeconds("/nonexistent/pressure/cpu").has_value());
  EXPECT_FALSE(CpuStallSeconds(Written("pressure_empty", "")).has_value());
  EXPECT_FALSE(CpuStallSeconds(Written("pressure_text", "some total=lots\n")).has_value());
  EXPECT_FALSE(
      CpuStallSeconds(Written("pressure_huge", "some total=99999999999999999999999\n")).has_value());
  EXPECT_FALSE(CpuStallSeconds(Written("pressure_full_only", "full total=12\n")).has_value());
}

}  // namespace
}  // namespace advisor
