#include "engine/autotest/fit_runs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "tests/autotest/fake_candidate.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Recipe Knob(const std::string& id, std::vector<std::string> devices = {"cuda"}) {
  Recipe recipe;
  recipe.id = id;
  recipe.kind = RecipeKind::kKnob;
  recipe.devices = std::move(devices);
  recipe.overrides.deterministic = false;
  return recipe;
}

// The candidates by id: one trains, one runs out again as a script's probe says it, one as a
// model.pt's worker does (its stderr), one crashes, one diverges. The baseline never runs.
constexpr char kCandidates[] = R"(case "$2" in
  fits) write_result 12 900 8 1 '' ;;
  probe-oom) printf '{"out_of_memory":"in the forward pass of 1 at train.py:34: CUDA out of memory."}' > "$result"; exit 1 ;;
  worker-oom) echo 'advisor: step 0 failed: CUDA out of memory. Tried to allocate 2.00 GiB' >&2; exit 1 ;;
  crashes) echo 'segfault here' >&2; kill -SEGV $$ ;;
  diverges) write_result 12 900 8 null '' ;;
  *) exit 7 ;;
esac)";

class FitRuns : public ::testing::Test {
 protected:
  FitRuns() {
    plan_.device = "cuda";
    plan_.torch_version = "2.11.0";
    plan_.settings.candidate_timeout = std::chrono::seconds(20);
  }

  std::vector<FixResult> Run() { return RunFitCandidates(plan_, runner_, budget_, progress_); }

  testing::ScratchDir dir_;
  testing::FakeCandidateRunner runner_{
      testing::WriteFakeCandidate(dir_.path(), "exit 9", kCandidates)};
  AutotestPlan plan_;
  AutotestBudget budget_;
  std::ostringstream progress_;
};

TEST_F(FitRuns, EachCandidateRunsAloneAndSaysWhetherItFits) {
  for (const char* id : {"fits", "probe-oom", "worker-oom", "crashes", "diverges"}) {
    plan_.recipes.push_back(Knob(id));
    plan_.recipe_ids.push_back(id);
  }
  const std::vector<FixResult> fixes = Run();
  ASSERT_EQ(fixes.size(), 5u);
  EXPECT_EQ(runner_.benchmark_runs(), 5) << "one run each, and no baseline";
  EXPECT_EQ(testing::ReadFile(dir_ / "order.log").find("baseline"), std::string::npos);
  for (const FixResult& fix : fixes) {
    EXPECT_TRUE(fix.candidate_only) << fix.recipe;
    EXPECT_EQ(fix.measured_in, "processes") << fix.recipe;
    EXPECT_EQ(fix.rounds, 0) << fix.recipe;
    EXPECT_EQ(fix.speedup, 0) << "no baseline, no speedup: " << fix.recipe;
  }

  EXPECT_EQ(fixes[0].recipe, "fits");
  EXPECT_EQ(fixes[0].status, "fits");
  EXPECT_DOUBLE_EQ(fixes[0].candidate.median_ms, 12.0);
  EXPECT_EQ(fixes[0].candidate.samples, 3);
  EXPECT_EQ(fixes[0].peak_memory_mb, 900.0);
  EXPECT_EQ(fixes[0].baseline.samples, 0);
  EXPECT_THAT(fixes[0].detail, HasSubstr("no speedup"));

  EXPECT_EQ(fixes[1].status, "out-of-memory");
  EXPECT_EQ(fixes[1].detail,
            "ran out of memory again in the forward pass of 1 at train.py:34: CUDA out of memory.");
  EXPECT_EQ(fixes[2].status, "out-of-memory");
  EXPECT_EQ(fixes[2].detail,
            "ran out of memory again advisor: step 0 failed: CUDA out of memory. Tried to allocate "
            "2.00 GiB");
  EXPECT_EQ(fixes[3].status, "failed");
  EXPECT_THAT(fixes[3].detail, StartsWith("killed by signal 11"));
  EXPECT_THAT(fixes[3].detail, HasSubstr("segfault here"));
  EXPECT_EQ(fixes[4].status, "failed");
  EXPECT_EQ(fixes[4].detail, "the loss was not finite");

  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] fits: fits, 12.0 ms/step, peak 900 MB\n"));
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] probe-oom: out-of-memory: ran out of memory again in the "
                        "forward pass of 1"));
}

TEST_F(FitRuns, SkipsWhatDoesNotApplyAndWhatTheBudgetLeavesNoRoomFor) {
  plan_.recipes = {Knob("cpu-only", {"cpu"}), Knob("fits")};
  plan_.recipe_ids = {"cpu-only", "missing", "fits"};
  AutotestBudget spent(std::chrono::seconds(1),
                       AutotestBudget::Clock::now() - std::chrono::seconds(5));
  const std::vector<FixResult> fixes = RunFitCandidates(plan_, runner_, spent, progress_);
  ASSERT_EQ(fixes.size(), 3u);
  EXPECT_EQ(runner_.benchmark_runs(), 0);
  for (const FixResult& fix : fixes) {
    EXPECT_EQ(fix.status, "skipped") << fix.recipe;
    EXPECT_TRUE(fix.measured_in.empty()) << "nothing ran: " << fix.recipe;
  }
  EXPECT_EQ(fixes[0].detail, "not applicable: applies to cpu, this run is on cuda");
  EXPECT_EQ(fixes[1].recipe, "missing");
  EXPECT_EQ(fixes[1].detail, "not applicable: no recipe \"missing\" was loaded from recipes/");
  EXPECT_EQ(fixes[2].detail, "not tried: the autotest budget (1s) was spent");
}

}  // namespace
}  // namespace advisor
