// End to end, issue #30's round trip: build/advisor bisects a model of several levels, then
// `advisor analyze` reads the bisection's own trace.json back, and says what the bisection said:
// its windows, its step's phases, and each module's times as the level that measured it did.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "tests/integration/run_advisor.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kAdvisor = ADVISOR_BINARY;

json ReportIn(const fs::path& folder) {
  return json::parse(testing::ReadFile((folder / "report.json").string()));
}

void ExpectWithin1Percent(const json& read_back, const json& measured, const std::string& what) {
  ASSERT_TRUE(read_back.is_number()) << what << ": " << read_back;
  ASSERT_TRUE(measured.is_number()) << what << ": " << measured;
  const double expected = measured.get<double>();
  EXPECT_NEAR(read_back.get<double>(), expected, 0.01 * std::abs(expected) + 1e-9) << what;
}

TEST(TraceRoundTrip, AnalyzeOfTheBisectionsTraceSaysWhatTheBisectionSaid) {
  const fs::path scratch = testing::FreshFolder(ADVISOR_TEST_SCRATCH_DIR, "round_trip");
  const testing::CommandResult bisect =
      testing::RunCommand(kAdvisor + " bisect " + ADVISOR_TEST_MODELS_DIR + "/deep.pt -q --out " +
                              (scratch / "bisect").string(),
                          scratch.string());
  ASSERT_EQ(bisect.exit_code, 0) << bisect.err;
  const testing::CommandResult analyze =
      testing::RunCommand(kAdvisor + " analyze " + (scratch / "bisect" / "trace.json").string() +
                              " -q --out " + (scratch / "analyze").string(),
                          scratch.string());
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  const json bisection = ReportIn(scratch / "bisect");
  const json read_back = ReportIn(scratch / "analyze");

  EXPECT_GT(bisection["run"]["windows"].get<int>(), 3) << "the model's levels take windows";
  EXPECT_EQ(read_back["run"]["windows"], bisection["run"]["windows"]);
  EXPECT_EQ(read_back["run"]["window_steps"], bisection["run"]["window_steps"]);
  for (const char* phase : {"forward_ms", "backward_ms", "optimizer_ms"}) {
    ExpectWithin1Percent(read_back["step"][phase], bisection["step"][phase], phase);
  }

  std::map<std::string, json> modules;  // read back, by path
  for (const json& module : read_back["modules"]) modules[module["path"]] = module;
  int levels_modules = 0;
  for (const json& module : bisection["modules"]) {
    if (!module["measured"].get<bool>()) continue;
    const std::string path = module["path"];
    ++levels_modules;
    ASSERT_EQ(modules.count(path), 1u) << path << " is read back";
    for (const char* time : {"forward_ms", "backward_ms"}) {
      ExpectWithin1Percent(modules[path][time], module[time], path + " " + time);
    }
  }
  EXPECT_GT(levels_modules, 5) << "modules of several levels";
}

}  // namespace
}  // namespace advisor
