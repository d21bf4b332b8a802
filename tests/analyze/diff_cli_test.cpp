// End-to-end: build/advisor diff on the recorded traces of tests/data/traces/ and on a report
// folder advisor analyze wrote from one of them, as a user runs it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/integration/run_advisor.h"

namespace advisor::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kSingle = std::string(ADVISOR_TEST_TRACES_DIR) + "/torch-1.13-cpu/single/";

class DiffCliTest : public ::testing::Test {
 protected:
  CommandResult Advisor(const std::string& arguments) {
    return RunCommand(std::string(ADVISOR_BINARY) + " " + arguments + " -q", scratch_.string());
  }

  const fs::path scratch_ = FreshFolder(
      ADVISOR_TEST_SCRATCH_DIR, ::testing::UnitTest::GetInstance()->current_test_info()->name());
};

double Sum(const json& parts) {
  double sum = 0;
  for (const json& part : parts) sum += part.at("delta_ms").get<double>();
  return sum;
}

// A report folder against the trace it was made from: the same run, so nothing changed; then
// two different runs' traces, whose phases add up to the step's change.
TEST_F(DiffCliTest, ComparesAReportFolderWithATraceAndTwoTraces) {
  const std::string trace = kSingle + "clean_mixer-labels.json.gz";
  const fs::path report = scratch_ / "report";
  ASSERT_EQ(Advisor("analyze " + trace + " --out " + report.string()).exit_code, 0);

  const fs::path same = scratch_ / "same";
  const CommandResult itself =
      Advisor("diff " + report.string() + " " + trace + " --out " + same.string());
  ASSERT_EQ(itself.exit_code, 0) << itself.err;
  const json unchanged = json::parse(ReadFile((same / "diff.json").string()));
  EXPECT_DOUBLE_EQ(unchanged.at("step_delta_ms").get<double>(), 0);
  EXPECT_FALSE(unchanged.at("modules").empty());
  for (const json& module : unchanged.at("modules")) {
    EXPECT_NEAR(module.at("delta_ms").get<double>(), 0, 1e-9) << module.at("path");
  }
  EXPECT_EQ(unchanged.at("findings").size(), 0u);

  const fs::path other = scratch_ / "other";
  const CommandResult two = Advisor("diff " + trace + " " + kSingle +
                                    "handwritten_attention-labels.json.gz --out " + other.string());
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const json diff = json::parse(ReadFile((other / "diff.json").string()));
  const double step = diff.at("step_delta_ms").get<double>();
  EXPECT_NE(step, 0);
  EXPECT_NEAR(Sum(diff.at("phases")) + diff.at("not_attributed_ms").get<double>(), step, 1e-6);
  EXPECT_TRUE(fs::exists(other / "diff.md"));
  EXPECT_NE(ReadFile((other / "diff.html").string()).find("fill-gap"), std::string::npos);
  EXPECT_NE(two.out.find("step: "), std::string::npos);
}

// Two ranks of one job's report: the straggler's forward, the other's wait in the backward.
TEST_F(DiffCliTest, ComparesTwoRanksOfOneReport) {
  const fs::path report = scratch_ / "report";
  ASSERT_EQ(Advisor("analyze " + std::string(ADVISOR_TEST_TRACES_DIR) +
                    "/torch-1.13-cpu/ranks/straggler --out " + report.string())
                .exit_code,
            0);
  const fs::path out = scratch_ / "ranks";
  const CommandResult result =
      Advisor("diff " + report.string() + " --ranks 0 1 --out " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json diff = json::parse(ReadFile((out / "diff.json").string()));
  const json ranks =
      json::parse(ReadFile((report / "report.json").string()))["distributed"]["ranks"];
  EXPECT_NEAR(diff.at("step_delta_ms").get<double>(),
              ranks[1]["step_ms"].get<double>() - ranks[0]["step_ms"].get<double>(), 1e-9);
  EXPECT_NEAR(Sum(diff.at("phases")) + diff.at("not_attributed_ms").get<double>(),
              diff.at("step_delta_ms").get<double>(), 1e-9);
  EXPECT_NE(diff.at("notes").dump().find("straggler"), std::string::npos);
  EXPECT_NE(Advisor("diff " + report.string() + " --ranks 0 7 --out " + out.string()).exit_code, 0);
}

TEST_F(DiffCliTest, ABadReportIsOneLineAndNoDiffFolder) {
  const fs::path bad = scratch_ / "bad";
  fs::create_directories(bad);
  std::ofstream(bad / "report.json") << R"({"schema_version": 1, "run": 3})";
  const fs::path out = scratch_ / "out";
  const CommandResult result = Advisor("diff " + bad.string() + " " + kSingle +
                                       "clean_mixer-labels.json.gz --out " + out.string());
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find((bad / "report.json").string() + ": field 'run'"), std::string::npos)
      << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_FALSE(fs::exists(out));

  const CommandResult empty =
      Advisor("diff " + scratch_.string() + " " + bad.string() + " --out " + out.string());
  EXPECT_NE(empty.exit_code, 0);
  EXPECT_NE(empty.err.find("no report.json"), std::string::npos) << empty.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace advisor::testing
