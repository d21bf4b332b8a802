// A verified rewrite shows its code before and after, and `--save-fixed DIR` saves the rewritten
// model: from the real binary, on window.pt (the demo's planted gather alone, where
// gather-to-index is about 2x faster), with the saved model loaded back by Python's torch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/autotest/candidate_result.h"
#include "tests/model_candidate/worker_models.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Loads the saved model in Python and runs its forward and backward under the profiler: the
// rewritten code keeps torch.gather only as the fallback for an index that selects no whole rows,
// so the ops that ran say whether the rewrite is in the file. Prints them, and fails when the
// model does not run or its workload did not travel along.
ProcessOutcome RunInPython(const std::string& model) {
  ProcessSpec spec;
  spec.argv = {ADVISOR_PYTHON, "-c",
               "import sys, torch\n"
               "extra = {'advisor/workload.json': ''}\n"
               "m = torch.jit.load(sys.argv[1], _extra_files=extra)\n"
               "assert extra['advisor/workload.json'], 'no workload'\n"
               "with torch.autograd.profiler.profile() as prof:\n"
               "    out = m(torch.randn(4, 64, 32))\n"
               "    out.sum().backward()\n"
               "assert out.shape == (4, 3), out.shape\n"
               "print(sorted({e.name for e in prof.function_events}))\n",
               model};
  spec.timeout = std::chrono::seconds(60);
  return RunProcess(spec);
}

std::string ReadText(const std::string& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

TEST(SaveFixed, TheNumericsWorkerSavesTheRewrittenModelAndDiffsItsCode) {
  testing::ScratchDir dir;
  const ProcessOutcome outcome = testing::RunAdvisor(
      {"candidate", testing::Models().window, "--recipe", "gather-to-index", "--numerics",
       "--save-fixed", dir / "fixed.pt", "--device", "cpu", "--result", dir / "numerics.json"});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;
  const NumericsResult result = ReadNumericsResult(dir / "numerics.json");
  ASSERT_EQ(result.code_changes.size(), 1u);
  EXPECT_THAT(result.code_changes[0].module_type, HasSubstr("WindowMean"));
  EXPECT_EQ(result.code_changes[0].method, "forward");
  EXPECT_THAT(result.code_changes[0].diff, HasSubstr("\n-  gathered = torch.gather("));
  EXPECT_THAT(result.code_changes[0].diff, Not(HasSubstr("\n+  gathered = torch.gather(")));

  const ProcessOutcome ran = RunInPython(dir / "fixed.pt");
  ASSERT_TRUE(ran.Succeeded()) << ran.Describe() << "\n" << ran.stderr_tail;
  EXPECT_THAT(ran.stdout_text, HasSubstr("'aten::index'"));
  EXPECT_THAT(ran.stdout_text, Not(HasSubstr("gather"))) << "the saved model still gathers";
}

TEST(SaveFixed, BisectAutotestSavesTheVerifiedRewriteWithAReadme) {
  testing::ScratchDir dir;
  // Only gather-to-index: the other recipes the rules name are skipped without a benchmark.
  std::filesystem::create_directories(dir / "recipes");
  std::filesystem::copy_file(std::string(ADVISOR_SOURCE_RECIPES) + "/gather-to-index.json",
                             dir / "recipes/gather-to-index.json");
  std::filesystem::create_directories(dir / "fixed");  // an empty folder is taken
  // Up to 8 rounds: the rewrite is about 3x on this 5 ms CPU step, but its rounds scatter (1.05x
  // to 3.4x seen), and 4 of them left the interval reaching below 1.0 in about one run of five.
  const ProcessOutcome outcome = testing::RunAdvisor(
      {"bisect", testing::Models().window, "--autotest", "--save-fixed", dir / "fixed", "--out",
       dir / "report", "--warmup", "1", "--steps", "3", "--autotest-rounds", "8"},
      {{"ADVISOR_RECIPES_DIR", dir / "recipes"}});
  ASSERT_TRUE(outcome.Succeeded()) << outcome.Describe() << "\n" << outcome.stderr_tail;

  const nlohmann::json report = nlohmann::json::parse(ReadText(dir / "report/report.json"));
  const nlohmann::json* fix = nullptr;
  for (const nlohmann::json& each : report.at("fixes")) {
    if (each.at("recipe") == "gather-to-index") fix = &each;
  }
  ASSERT_NE(fix, nullptr) << report.at("fixes").dump(2);
  // PyTorch 2.11's CPU build on 16 cores runs the rewrite slower (0.74x, rejected, 2026-11-26):
  // a rejected fix is not saved, and there is nothing more to check on such a machine.
  if (fix->at("status") == "rejected" &&
      fix->at("detail").get<std::string>().rfind("slower than the baseline", 0) == 0 &&
      report.at("run").at("torch_version").get<std::string>().rfind("1.", 0) != 0) {
    EXPECT_TRUE(fix->at("saved_model").is_null());
    EXPECT_FALSE(std::filesystem::exists(dir / "fixed/gather-to-index.pt"));
    GTEST_SKIP() << "torch " << report.at("run").at("torch_version").get<std::string>()
                 << " ran the rewrite slower here: " << fix->at("detail").get<std::string>();
  }
  ASSERT_EQ(fix->at("status"), "verified") << fix->dump(2);
  EXPECT_EQ(fix->at("saved_model"), dir / "fixed/gather-to-index.pt");
  ASSERT_EQ(fix->at("code_changes").size(), 1u) << fix->dump(2);
  EXPECT_THAT(fix->at("code_changes")[0].at("diff").get<std::string>(), HasSubstr("torch.index("));
  EXPECT_THAT(ReadText(dir / "report/report.md"), HasSubstr("```diff\n@@ "));
  // The change at the user's line, from the gather finding's source (whatever the hot spot).
  EXPECT_THAT(fix->at("suggested_change").get<std::string>(),
              HasSubstr("\n+gathered = x[torch.arange(x.shape[0], device=x.device)"));
  for (const nlohmann::json& finding : report.at("findings")) {
    if (finding.at("rule") != "gather-backward") continue;
    ASSERT_FALSE(finding.at("source").is_null()) << finding.dump(2);
    EXPECT_THAT(finding.at("source").at("text").get<std::string>(), HasSubstr("x.gather(1, "));
  }
  EXPECT_THAT(ReadText(dir / "fixed/README.md"), HasSubstr("| `gather-to-index.pt` |"));

  const ProcessOutcome ran = RunInPython(dir / "fixed/gather-to-index.pt");
  ASSERT_TRUE(ran.Succeeded()) << ran.Describe() << "\n" << ran.stderr_tail;
  EXPECT_THAT(ran.stdout_text, Not(HasSubstr("gather"))) << "the saved model still gathers";
}

TEST(SaveFixed, AFolderThatIsNotEmptyIsRefusedWithOneLineBeforeAnyWork) {
  testing::ScratchDir dir;
  std::filesystem::create_directories(dir / "fixed");
  std::ofstream(dir / "fixed/mine.txt") << "keep me";
  const ProcessOutcome outcome =
      testing::RunAdvisor({"bisect", testing::Models().window, "--autotest", "--save-fixed",
                           dir / "fixed", "--out", dir / "report"});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.Describe();
  EXPECT_EQ(outcome.stderr_tail, "advisor: --save-fixed " + dir / "fixed" +
                                     ": exists and is not empty; give a new or an empty folder\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "report"));
  EXPECT_EQ(ReadText(dir / "fixed/mine.txt"), "keep me");
}

TEST(SaveFixed, NeedsTheAutotest) {
  testing::ScratchDir dir;
  const ProcessOutcome outcome = testing::RunAdvisor(
      {"bisect", testing::Models().window, "--save-fixed", dir / "fixed", "--out", dir / "report"});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.Describe();
  EXPECT_THAT(outcome.stderr_tail, HasSubstr("--save-fixed needs --autotest"));
  EXPECT_FALSE(std::filesystem::exists(dir / "fixed"));
}

}  // namespace
}  // namespace advisor
