#include "engine/util/cpu_pressure.h"

#include <gtest/gtest.h>
#include <unistd.h>

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
  EXPECT_FALSE(CpuStallSeconds(Written("pressure_huge", "some total=99999999999999999999999\n"))
                   .has_value());
  EXPECT_FALSE(CpuStallSeconds(Written("pressure_full_only", "full total=12\n")).has_value());
}

// A /proc of four processes: advisor (100), its script (101) and the script's DataLoader worker
// (102, its name with a space and a parenthesis), and another user's job (200).
fs::path FakeProc() {
  const fs::path proc = fs::path(::testing::TempDir()) / "fake_proc";
  fs::remove_all(proc);
  fs::create_directories(proc);
  // user nice system idle iowait irq softirq steal: busy = 600 + 0 + 300 + 50 + 50 + 0 = 1000.
  std::ofstream(proc / "stat") << "cpu  600 0 300 5000 700 50 50 0 0 0\ncpu0 1 2 3 4 5 6 7 8\n";
  const auto process = [&proc](int pid, const std::string& name, int parent, int utime,
                               int stime, int cutime) {
    fs::create_directories(proc / std::to_string(pid));
    std::ofstream(proc / std::to_string(pid) / "stat")
        << pid << " (" << name << ") S " << parent << " 1 1 0 -1 0 0 0 0 0 " << utime << " "
        << stime << " " << cutime << " 0 20 0 1 0";
  };
  process(100, "advisor", 1, 100, 20, 30);  // 30: children it reaped before
  process(101, "python3", 100, 300, 50, 0);
  process(102, "pt_data_worker) x", 101, 200, 0, 0);
  process(200, "spinner", 1, 250, 0, 0);
  return proc;
}

TEST(OthersCpuSeconds, IsTheMachinesBusyTimeLessThisProcessTrees) {
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const std::optional<double> others = OthersCpuSeconds(FakeProc().string(), 100);
  ASSERT_TRUE(others.has_value());
  EXPECT_DOUBLE_EQ(*others, (1000.0 - (150 + 350 + 200)) / ticks);
  EXPECT_DOUBLE_EQ(*OthersCpuSeconds(FakeProc().string(), 101), (1000.0 - 550) / ticks)
      << "the script's own tree: advisor's time is other work's";
  EXPECT_FALSE(OthersCpuSeconds(FakeProc().string(), 4242).has_value()) << "not a process here";
  EXPECT_FALSE(OthersCpuSeconds("/nonexistent/proc", 100).has_value());
}

}  // namespace
}  // namespace advisor
