#include "engine/autotest/autotest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "tests/autotest/fake_candidate.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

Recipe Knob(const std::string& id, bool preserves_semantics = false) {
  Recipe recipe;
  recipe.id = id;
  recipe.kind = RecipeKind::kKnob;
  recipe.preserves_semantics = preserves_semantics;
  recipe.tolerance = preserves_semantics ? ToleranceClass::kReordering : ToleranceClass::kUnchecked;
  recipe.devices = {"cuda"};
  recipe.overrides.deterministic = false;
  return recipe;
}

// Baseline 20 ms; the candidates' step times by id.
constexpr char kCandidateTimes[] = R"(case "$2" in
  fast) write_result 10 null 8 1 '' ;;
  faster) write_result 8 null 8 1 '' ;;
  rival) write_result 9 null 8 1 '' ;;
  same) write_result 20 null 8 1 '' ;;
  faster+fast) write_result 5 null 8 1 '' ;;
  faster+rival+fast) write_result 4 null 8 1 '' ;;
  *) exit 7 ;;
esac)";

class Autotest : public ::testing::Test {
 protected:
  Autotest() {
    plan_.device = "cuda";
    plan_.torch_version = "2.11.0";
    plan_.settings.max_rounds = 5;
    plan_.settings.candidate_timeout = std::chrono::seconds(20);
  }

  std::vector<AbResult> Run() { return RunAutotest(plan_, runner_, budget_, progress_); }

  // A blocks script that runs `before`, then writes `blocks_json` as its result.
  std::string WriteBlocksScript(const std::string& blocks_json, const std::string& before = "") {
    return testing::WriteScript(dir_ / "blocks.sh",
                                before + "\ncat > \"$1\" <<'EOF'\n" + blocks_json + "\nEOF");
  }

  // A blocks script that writes `first` as its first run's result and `second` as later runs'.
  std::string FirstThenSecond(const std::string& first, const std::string& second) {
    const std::string ran = dir_ / "first";
    return WriteBlocksScript(second, "if [ ! -e \"" + ran + "\" ]; then\ntouch \"" + ran +
                                         "\"\ncat > \"$1\" <<'EOF'\n" + first +
                                         "\nEOF\nexit 0\nfi");
  }

  testing::ScratchDir dir_;
  testing::FakeCandidateRunner runner_{
      testing::WriteFakeCandidate(dir_.path(), "write_result 20 null 8 1 ''", kCandidateTimes)};
  AutotestPlan plan_;
  AutotestBudget budget_;
  std::ostringstream progress_;
};

TEST_F(Autotest, SkipsWhatCannotRunWithoutStartingAWorker) {
  Recipe planned = Knob("planned");
  planned.status = RecipeStatus::kPlanned;
  Recipe cpu_only = Knob("cpu-only");
  cpu_only.devices = {"cpu"};
  plan_.recipes = {planned, cpu_only};
  plan_.recipe_ids = {"planned", "cpu-only", "missing"};

  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 3u);
  for (const AbResult& result : results) EXPECT_EQ(result.fix.status, "skipped");
  EXPECT_THAT(results[0].fix.detail, StartsWith("not implemented"));
  EXPECT_EQ(results[1].fix.detail, "not applicable: applies to cpu, this run is on cuda");
  EXPECT_EQ(results[2].fix.detail,
            "not applicable: no recipe \"missing\" was loaded from recipes/");
  EXPECT_EQ(runner_.benchmark_runs(), 0);
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] planned: skipped: not implemented"));
}

// What every run shares (a script's compile cache) is said once, before any candidate runs.
TEST_F(Autotest, SaysWhatTheDoorsRunsShareFirst) {
  plan_.recipes = {Knob("fast")};
  plan_.recipe_ids = {"fast"};
  runner_.set_shared("torch.compile's caches in /tmp/advisor-compile-cache-1-a");
  Run();
  EXPECT_THAT(progress_.str(),
              StartsWith("[autotest] torch.compile's caches in /tmp/advisor-compile-cache-1-a\n"));
  EXPECT_EQ(runner_.benchmark_runs(), 4) << "and then the candidate's rounds";
}

TEST_F(Autotest, NumericsOutsideToleranceRejectBeforeAnyBenchmark) {
  plan_.recipes = {Knob("fast", /*preserves_semantics=*/true), Knob("faster", true)};
  plan_.recipe_ids = {"fast", "faster"};
  runner_.set_check([](const CandidateSpec& candidate) {
    NumericsVerdict verdict;
    if (candidate.id == "fast") {
      verdict.outcome = NumericsVerdict::Outcome::kExceeded;
      verdict.numerics = Numerics{0.5, 0.1, 1e-3, "processes"};
      verdict.detail = "loss differs by 0.5";
    } else {
      verdict.detail = "the numerics worker crashed";
    }
    return verdict;
  });

  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].fix.status, "rejected");
  EXPECT_EQ(results[0].fix.detail, "numerics outside tolerance: loss differs by 0.5");
  ASSERT_TRUE(results[0].fix.numerics.has_value());
  EXPECT_EQ(results[0].fix.numerics->max_abs_diff, 0.5);
  EXPECT_EQ(results[1].fix.status, "failed");
  EXPECT_EQ(results[1].fix.detail, "numerics check failed: the numerics worker crashed");
  EXPECT_EQ(runner_.benchmark_runs(), 0);
}

TEST_F(Autotest, NumericsAreReportedOrSaidToBeUnchecked) {
  plan_.recipes = {Knob("fast", /*preserves_semantics=*/true)};
  plan_.recipe_ids = {"fast"};
  const std::vector<AbResult> unchecked = Run();
  ASSERT_EQ(unchecked.size(), 1u);
  EXPECT_EQ(unchecked[0].fix.status, "verified");
  EXPECT_EQ(unchecked[0].fix.detail, "numerics not checked");
  EXPECT_FALSE(unchecked[0].fix.numerics.has_value());

  runner_.set_check([](const CandidateSpec&) {
    return NumericsVerdict{NumericsVerdict::Outcome::kWithinTolerance,
                           Numerics{1e-7, 1e-6, 1e-4, "processes"},
                           "",
                           {}};
  });
  const std::vector<AbResult> checked = Run();
  ASSERT_TRUE(checked[0].fix.numerics.has_value());
  EXPECT_EQ(checked[0].fix.numerics->tolerance, 1e-4);
  EXPECT_EQ(checked[0].fix.detail, "");
}

NumericsVerdict Within() {
  return {
      NumericsVerdict::Outcome::kWithinTolerance, Numerics{1e-7, 1e-6, 1e-4, "processes"}, "", {}};
}

TEST_F(Autotest, EachSingleRecipeIsCheckedOnceBeforeAnyBenchmarkACombinationWhenTried) {
  plan_.recipes = {Knob("fast", /*preserves_semantics=*/true), Knob("faster", true)};
  plan_.recipe_ids = {"fast", "faster"};
  runner_.set_check([this](const CandidateSpec& candidate) {
    if (candidate.id != "faster+fast") {
      EXPECT_EQ(runner_.benchmark_runs(), 0) << candidate.id;
    }
    return Within();
  });
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2].fix.recipe, "faster+fast");
  for (const AbResult& result : results) {
    EXPECT_EQ(result.fix.status, "verified") << result.fix.recipe;
    EXPECT_TRUE(result.fix.numerics.has_value()) << result.fix.recipe;
  }
  EXPECT_EQ(runner_.checked(), (std::vector<std::string>{"fast", "faster", "faster+fast"}));
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] fast: checking numerics\n"));
}

// A door that does not apply a candidate (the model door's rewrite with no site) says so in its
// numerics check: a single recipe is then skipped in its place, without a benchmark; a
// combination it was asked to try fails.
TEST_F(Autotest, ARecipeTheDoorDeclinesIsSkippedInItsPlaceWithoutABenchmark) {
  plan_.recipes = {Knob("fast", /*preserves_semantics=*/true), Knob("faster", true),
                   Knob("same", true)};
  plan_.recipe_ids = {"fast", "faster", "same"};
  runner_.set_check([](const CandidateSpec& candidate) {
    if (candidate.id != "faster") return Within();
    return NumericsVerdict{NumericsVerdict::Outcome::kDeclined, {}, "no site to rewrite", {}};
  });
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 3u) << "fast alone helped: no combination";
  EXPECT_EQ(results[0].fix.status, "verified");
  EXPECT_EQ(results[1].fix.recipe, "faster");
  EXPECT_EQ(results[1].fix.status, "skipped");
  EXPECT_EQ(results[1].fix.detail, "no site to rewrite");
  EXPECT_EQ(results[2].fix.status, "no-change");
  EXPECT_THAT(testing::ReadFile(dir_ / "order.log"), Not(HasSubstr("faster")));
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] faster: skipped: no site to rewrite\n"));
}

TEST_F(Autotest, ACombinationTheDoorDeclinesFails) {
  plan_.recipes = {Knob("fast", /*preserves_semantics=*/true), Knob("faster", true)};
  plan_.recipe_ids = {"fast", "faster"};
  runner_.set_check([](const CandidateSpec& candidate) {
    if (candidate.id != "faster+fast") return Within();
    return NumericsVerdict{NumericsVerdict::Outcome::kDeclined, {}, "no site to rewrite", {}};
  });
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2].fix.status, "failed");
  EXPECT_EQ(results[2].fix.detail,
            "numerics check failed: the worker declined it: no site to rewrite");
  EXPECT_THAT(testing::ReadFile(dir_ / "order.log"), Not(HasSubstr("faster+fast")));
}

TEST_F(Autotest, CombinesTheCompatibleRecipesThatHelpedLast) {
  Recipe fast = Knob("fast");
  fast.env["ADVISOR_TEST_KNOB"] = "on";
  Recipe faster = Knob("faster");
  faster.overrides.batch_scale = 2;
  Recipe rival = Knob("rival");
  rival.conflicts_with = {"faster"};
  plan_.recipes = {fast, faster, rival, Knob("same")};
  plan_.recipe_ids = {"same", "fast", "rival", "faster"};

  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].fix.status, "no-change");
  const FixResult& combined = results.back().fix;
  // Fastest first: faster (2.5x), then rival (2.2x) conflicts with it, then fast (2x).
  EXPECT_EQ(combined.recipe, "faster+fast");
  EXPECT_EQ(combined.kind, "combination");
  EXPECT_EQ(combined.status, "verified");
  EXPECT_DOUBLE_EQ(combined.speedup, 4.0);
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] combining faster+fast\n"));
  // The combination's candidate runs carry its members' environment.
  EXPECT_THAT(testing::ReadFile(dir_ / "order.log"), HasSubstr("faster+fast on\n"));
}

// A recipe that sets dataloader_workers runs as a series where the run says its worker count and
// another count fits the cores; as written where none does.
TEST_F(Autotest, AWorkersRecipeRunsAsASeriesWhereAnotherCountFits) {
  Recipe workers = Knob("fast");
  workers.overrides.dataloader_workers = ThreadCount{};
  plan_.recipes = {workers};
  plan_.recipe_ids = {"fast"};
  plan_.input_workers = 0;
  plan_.cores = 4;
  std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].fix.status, "verified");
  ASSERT_EQ(results[0].fix.worker_series.size(), 3u) << "the workload's 0, then 2 and 4";
  EXPECT_EQ(results[0].fix.worker_series[0].status, "baseline");
  EXPECT_EQ(results[0].fix.knee_workers, 2) << "2 and 4 workers are as fast";

  plan_.cores = 1;
  results = Run();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].fix.status, "verified") << "run as written";
  EXPECT_TRUE(results[0].fix.worker_series.empty());
  EXPECT_FALSE(results[0].fix.knee_workers.has_value());
}

TEST(ChooseCombination, NeedsTwoVerifiedRecipes) {
  const std::vector<Recipe> recipes = {Knob("a"), Knob("b"), Knob("c")};
  auto result = [](const std::string& id, const char* status, double speedup) {
    AbResult ab;
    ab.fix.recipe = id;
    ab.fix.status = status;
    ab.fix.speedup = speedup;
    return ab;
  };
  EXPECT_TRUE(ChooseCombination({result("a", "verified", 1.5), result("b", "no-change", 1.01),
                                 result("c", "rejected", 0.8)},
                                recipes)
                  .empty());
  const std::vector<const Recipe*> chosen = ChooseCombination(
      {result("a", "verified", 1.2), result("b", "failed", 0), result("c", "verified", 1.5)},
      recipes);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0]->id, "c");
  EXPECT_EQ(chosen[1]->id, "a");
}

TEST(ChooseCombination, NeverPutsTheTwoShippedBatchScalesTogether) {
  const RecipeSet set = LoadRecipeDir(ADVISOR_RECIPES_DIR);
  const Recipe* x2 = FindRecipe(set.recipes, "batch-size-x2");
  const Recipe* x4 = FindRecipe(set.recipes, "batch-size-x4");
  ASSERT_NE(x2, nullptr);
  ASSERT_NE(x4, nullptr);
  EXPECT_EQ(x4->overrides.batch_scale, 4);
  EXPECT_EQ(x4->conflicts_with, std::vector<std::string>{"batch-size-x2"});
  EXPECT_THAT(FindConflict({x2, x4}), HasSubstr("batch-size-x2"));

  auto verified = [](const std::string& id, double speedup) {
    AbResult ab;
    ab.fix.recipe = id;
    ab.fix.status = fix_status::kVerified;
    ab.fix.speedup = speedup;
    return ab;
  };
  // Both measured faster: the combination keeps the faster one only, which is no combination.
  EXPECT_TRUE(ChooseCombination({verified("batch-size-x2", 1.8), verified("batch-size-x4", 2.6)},
                                set.recipes)
                  .empty());
}

TEST(RecipeIdsFromFindings, KeepsTheFindingsOrderOnce) {
  std::vector<Finding> findings(4);
  findings[0].recipe = "gather-to-index";
  findings[2].recipe = "tf32-matmul";
  findings[2].also_recipes = {"bf16-autocast", "gather-to-index"};
  findings[3].recipe = "gather-to-index";
  EXPECT_EQ(RecipeIdsFromFindings(findings),
            (std::vector<std::string>{"gather-to-index", "tf32-matmul", "bf16-autocast"}));
}

TEST(AdvisorCandidateCommand, FollowsTheWorkerContract) {
  AdvisorCandidateOptions options{"/opt/advisor", "vit.pt", "cuda", 30, 5, {}};
  EXPECT_EQ(
      AdvisorCandidateCommand(options, nullptr, "/tmp/r.json").argv,
      (std::vector<std::string>{"/opt/advisor", "candidate", "vit.pt", "--steps", "30", "--warmup",
                                "5", "--device", "cuda", "--result", "/tmp/r.json"}));
  CandidateSpec pair;
  pair.recipe_ids = {"tf32-matmul", "cudnn-benchmark"};
  EXPECT_EQ(AdvisorCandidateCommand(options, &pair, "/tmp/r.json").argv,
            (std::vector<std::string>{"/opt/advisor", "candidate", "vit.pt", "--recipe",
                                      "tf32-matmul,cudnn-benchmark", "--steps", "30", "--warmup",
                                      "5", "--device", "cuda", "--result", "/tmp/r.json"}));
  options.workload_arguments = {"--step-timeout", "60", "--jit-optimize"};
  EXPECT_EQ(AdvisorCandidateCommand(options, nullptr, "/tmp/r.json").argv,
            (std::vector<std::string>{"/opt/advisor", "candidate", "vit.pt", "--steps", "30",
                                      "--warmup", "5", "--device", "cuda", "--result",
                                      "/tmp/r.json", "--step-timeout", "60", "--jit-optimize"}))
      << "every run runs the workload as the bisection did";
}

// One candidate's blocks in BlocksJson: its steps of `ms`, or, with a `swing`, of `ms` - `swing`
// on even cycles and `ms` + `swing` on odd ones (a candidate whose pairs disagree).
struct BlockSteps {
  std::string id;
  double ms = 0;
  double swing = 0;
};

// Blocks of a run, as the script probe writes them: `pairs` cycles of a baseline block of
// `baseline_ms` steps and a candidate block for each candidate, five steps a block (BlockDesign's
// default).
std::string BlocksJson(const std::vector<BlockSteps>& candidates, int pairs, double baseline_ms,
                       bool complete = true, const std::string& numerics = "{}") {
  std::string blocks;
  for (int cycle = 0; cycle < pairs; ++cycle) {
    for (const BlockSteps& candidate : candidates) {
      const double candidate_ms = candidate.ms + (cycle % 2 ? candidate.swing : -candidate.swing);
      const std::string& id = candidate.id;
      for (const auto& [side, ms] :
           {std::pair<std::string, double>{"baseline", baseline_ms}, {"candidate", candidate_ms}}) {
        const std::string step = std::to_string(ms + 0.1 * (cycle % 2));
        blocks += std::string(blocks.empty() ? "" : ",") + R"({"candidate":")" + id +
                  R"(","side":")" + side + R"(","cycle":)" + std::to_string(cycle) +
                  R"(,"step_ms":[)" + step + "," + step + "," + step + "," + step + "," + step +
                  R"(],"peak_memory_mb":null})";
      }
    }
  }
  return R"({"blocks":[)" + blocks + R"(],"complete":)" + (complete ? "true" : "false") +
         R"(,"samples_per_step":8,"loss":1.0,"warmup_s":0.5,"numerics":)" + numerics + "}";
}

// The probe's numerics checks inside the run, as it writes them: each candidate's outputs moved
// by `relative` of their magnitude, held to the reordering tolerance.
std::string InRunNumericsJson(const std::vector<std::string>& ids, double relative = 1e-5) {
  std::string checks;
  for (const std::string& id : ids) {
    checks += (checks.empty() ? "\"" : ",\"") + id + R"(":{"max_abs_diff":)" +
              std::to_string(relative * 2) + R"(,"max_rel_diff":)" + std::to_string(relative) +
              R"(,"tolerance":0.001,"detail":"output: relative difference","compared":1})";
  }
  return "{" + checks + "}";
}

Recipe Switchable(const std::string& id) {
  Recipe recipe = Knob(id, /*preserves_semantics=*/true);
  recipe.overrides = {};
  recipe.overrides.allow_tf32 = true;
  return recipe;
}

// Five pairs of blocks of fast (2x), faster (2.5x) and their combination (4x), numerics within
// the reordering tolerance.
std::string FastFasterAndBoth() {
  return BlocksJson({{"fast", 10.0}, {"faster", 8.0}, {"faster+fast", 5.0}}, 5, 20.0, true,
                    InRunNumericsJson({"fast", "faster", "faster+fast"}));
}

// Knobs a running script reads between steps are measured together in one run of blocks, first,
// their numerics checked inside that run; the rest in rounds of processes, numerics first.
TEST_F(Autotest, SwitchableKnobsAreMeasuredTogetherInOneRunOfBlocks) {
  Recipe workers = Knob("same", /*preserves_semantics=*/true);
  workers.overrides = {};
  workers.overrides.pin_memory = true;
  plan_.recipes = {Switchable("fast"), Switchable("faster"), workers};
  plan_.recipe_ids = {"fast", "same", "faster"};
  std::size_t blocks_runs_before_a_check = 0;
  runner_.set_check([&](const CandidateSpec&) {
    blocks_runs_before_a_check = runner_.blocks_runs().size();
    return Within();
  });
  runner_.set_blocks_script(WriteBlocksScript(FastFasterAndBoth()));

  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), (std::vector<std::string>{"fast,faster", "faster+fast"}))
      << "one run for the singles, one for their combination";
  EXPECT_EQ(runner_.checked(), std::vector<std::string>{"same"})
      << "no numerics process for a candidate checked inside its run";
  EXPECT_EQ(blocks_runs_before_a_check, 2u)
      << "the switched knobs and their combination do not wait for another's numerics";
  EXPECT_EQ(runner_.last_design().cycles, 5) << "at most --autotest-rounds pairs";
  ASSERT_EQ(results.size(), 4u);
  for (int i : {0, 2}) {
    const FixResult& fix = results[i].fix;
    EXPECT_EQ(fix.status, "verified") << fix.recipe;
    EXPECT_EQ(fix.measured_in, "process") << fix.recipe;
    EXPECT_EQ(fix.rounds, 5) << fix.recipe;
    ASSERT_TRUE(fix.numerics.has_value()) << "numerics checked before the blocks";
    EXPECT_EQ(fix.numerics->checked_in, "process") << fix.recipe;
    EXPECT_EQ(fix.numerics->max_rel_diff, 1e-5) << fix.recipe;
    EXPECT_TRUE(fix.speedup_ci_low.has_value());
  }
  EXPECT_NEAR(results[0].fix.speedup, 2.0, 0.02);
  EXPECT_NEAR(results[2].fix.speedup, 2.5, 0.03);
  EXPECT_FALSE(results[0].fix.loader_wait_ms.has_value()) << "no DataLoader fed the steps";
  EXPECT_FALSE(results[0].fix.epoch_starts.has_value()) << "no DataLoader's epochs to count";
  EXPECT_EQ(results[0].fix.detail.find("held back"), std::string::npos) << results[0].fix.detail;
  EXPECT_EQ(results[3].fix.recipe, "faster+fast");
  EXPECT_EQ(results[3].fix.measured_in, "process");
  EXPECT_NEAR(results[3].fix.speedup, 4.0, 0.05);
  ASSERT_TRUE(results[3].fix.numerics.has_value());
  EXPECT_EQ(results[3].fix.numerics->checked_in, "process");
  EXPECT_EQ(results[1].fix.recipe, "same");
  EXPECT_EQ(results[1].fix.measured_in, "processes");
  EXPECT_GT(results[1].fix.rounds, 0);
  EXPECT_THAT(testing::ReadFile(dir_ / "order.log"), Not(HasSubstr("fast")))
      << "no process of their own for the switched knobs";
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] measuring fast, faster inside one run of the "
                                         "script: 5 cycles"));
}

// `blocks` (BlocksJson's) as the probe writes them where a DataLoader with 2 workers, prefetching
// 2 batches each, in epochs of 64 batches, feeds the steps: each timed step's wait for its batch,
// `baseline_wait_ms` in the baseline's blocks and `candidate_wait_ms` in the candidate's; the
// faster candidate's blocks drained the loader's queue (2 settle steps and 4 more), the baseline's
// did not; and each candidate block's last timed step began an epoch.
std::string WithLoaderWaits(std::string blocks, double baseline_wait_ms, double candidate_wait_ms) {
  for (const auto& [side, wait_ms] : {std::pair<std::string, double>{"baseline", baseline_wait_ms},
                                      {"candidate", candidate_wait_ms}}) {
    const std::string marker = R"("side":")" + side + R"(",)";
    const std::string wait = std::to_string(wait_ms);
    const std::string waits =
        R"("loader_wait_ms":[)" + wait + "," + wait + "," + wait + "," + wait + "," + wait + "]," +
        (side == "candidate" ? R"("settle_ms":[9,9,9,9,9,9],"epoch_starts":[4],)"
                             : R"("settle_ms":[9,9],"epoch_starts":[],)");
    for (std::size_t at = blocks.find(marker); at != std::string::npos;
         at = blocks.find(marker, at + marker.size() + waits.size())) {
      blocks.insert(at + marker.size(), waits);
    }
  }
  const std::string complete = R"("complete":)";
  blocks.insert(blocks.find(complete), R"("settle":2,"loader_queue":4,"epoch_batches":64,)");
  return blocks;
}

// A candidate faster than the DataLoader's workers waits for its batches once the loader's queue
// is drained: its speedup is what the input pipeline lets through, and its verdict says it is held
// back there, with each side's wait per step, and the waits of the steps that began an epoch.
TEST_F(Autotest, ACandidateTheLoaderHoldsBackSaysSo) {
  plan_.recipes = {Switchable("fed")};
  plan_.recipe_ids = {"fed"};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  runner_.set_blocks_script(WriteBlocksScript(WithLoaderWaits(
      BlocksJson({{"fed", 40.0}}, 5, 100.0, true, InRunNumericsJson({"fed"})), 0.5, 20.0)));

  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 1u);
  const FixResult& fix = results[0].fix;
  EXPECT_EQ(fix.status, "verified") << fix.detail;
  EXPECT_EQ(fix.loader_wait_ms, 20.0);
  EXPECT_EQ(fix.baseline_loader_wait_ms, 0.5);
  EXPECT_THAT(fix.detail, HasSubstr("held back by the input pipeline: its steps waited 20.0 ms "
                                    "of 40.0 for the DataLoader's batches (the baseline's 0.5 ms "
                                    "of 100.0)"));
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] the DataLoader feeding the steps holds 4 batches ready: 5 of "
                        "10 blocks, whose side may be faster than the block before it, left out "
                        "their first 6 steps"));
  EXPECT_EQ(fix.epoch_starts, 5) << "one in each of the candidate's blocks";
  EXPECT_EQ(fix.epoch_start_wait_ms, 20.0);
  EXPECT_EQ(fix.baseline_epoch_starts, 0);
  EXPECT_FALSE(fix.baseline_epoch_start_wait_ms.has_value());
  EXPECT_EQ(fix.epoch_batches, 64);
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] fed: timed steps that began an epoch (of 64 "
                                         "batches): 5 waiting 20.0 ms on average, the baseline's "
                                         "none"));
}

// `blocks` (BlocksJson's) with each block's lead over the device at its end, as the probe writes
// it on a GPU: `baseline_lead` in the baseline's blocks, `candidate_lead` in the candidate's.
std::string WithHostLeads(std::string blocks, const std::string& baseline_lead,
                          const std::string& candidate_lead) {
  for (const auto& [side, lead] : {std::pair<std::string, std::string>{"baseline", baseline_lead},
                                   {"candidate", candidate_lead}}) {
    const std::string marker = R"("side":")" + side + R"(",)";
    const std::string field = R"("host_lead_ms":)" + lead + ",";
    for (std::size_t at = blocks.find(marker); at != std::string::npos;
         at = blocks.find(marker, at + marker.size() + field.size())) {
      blocks.insert(at + marker.size(), field);
    }
  }
  return blocks;
}

// An epoch's start on a GPU: the loader's extra wait (300 ms beyond the steps' usual 2) idles the
// device only once the host's lead is used up, so the baseline, whose host kept 200 ms ahead, pays
// 100 ms an epoch and the candidate, whose host kept none, all 300; each side's pairs count its own
// share over the epoch's 64 batches: (100 + 100/64) / (40 + 300/64), not 100 / 40.
TEST_F(Autotest, EachSidePaysAnEpochsStartLessItsHostsLead) {
  plan_.recipes = {Switchable("fed")};
  plan_.recipe_ids = {"fed"};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  std::string blocks = WithHostLeads(
      WithLoaderWaits(BlocksJson({{"fed", 40.0}}, 5, 100.0, true, InRunNumericsJson({"fed"})), 2.0,
                      2.0),
      "200", "0");
  blocks.insert(blocks.find(R"("complete":)"), R"("epoch_start_waits_ms":[302,302,302],)");
  runner_.set_blocks_script(WriteBlocksScript(blocks));

  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 1u);
  const FixResult& fix = results[0].fix;
  EXPECT_EQ(fix.epoch_start_extra_wait_ms, 300.0);
  EXPECT_EQ(fix.baseline_host_lead_ms, 200.0);
  EXPECT_EQ(fix.host_lead_ms, 0.0);
  EXPECT_EQ(fix.baseline_epoch_start_cost_ms, 100.0);
  EXPECT_EQ(fix.epoch_start_cost_ms, 300.0);
  EXPECT_NEAR(fix.speedup, (100.0 + 100.0 / 64) / (40.0 + 300.0 / 64), 0.005)
      << "2.27x; the odd cycles' steps are 0.1 ms longer";
  ASSERT_FALSE(fix.pairs.empty());
  EXPECT_EQ(fix.pairs[0].candidate_ms.size(), 4u) << "the step that began an epoch left out";
  EXPECT_DOUBLE_EQ(fix.pairs[0].candidate_ms[0], 40.0 + 300.0 / 64);
  EXPECT_DOUBLE_EQ(fix.pairs[0].baseline_ms[0], 100.0 + 100.0 / 64);
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] fed: an epoch's start costs it 300.0 ms (its host 0.0 ms "
                        "ahead of the device), the baseline 100.0 ms (200.0 ms ahead)"));
}

// On a GPU, a candidate whose host kept 5 ms of its 40 ms steps queued ahead of the device is
// paced by the host, and a baseline 100 ms ahead of its 100 ms steps by the device: the speedup
// (2.5x) is the device's time over the host's, which follows the host CPU's speed, and the verdict
// says so beside it. A candidate 35 ms ahead of its 40 ms steps is the device's too: no note.
TEST_F(Autotest, AHostPacedCandidateOverADevicePacedBaselineSaysItsSpeedupFollowsTheHost) {
  plan_.recipes = {Switchable("launch-bound"), Switchable("queued")};
  plan_.recipe_ids = {"launch-bound", "queued"};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  const std::string blocks = BlocksJson({{"launch-bound", 40.0}, {"queued", 40.0}}, 5, 100.0, true,
                                        InRunNumericsJson({"launch-bound", "queued"}));
  // The second candidate's blocks follow the first's in each cycle: give it its own leads.
  std::string led = WithHostLeads(blocks, "100", "5");
  for (std::size_t at = led.find(R"("candidate":"queued","side":"candidate",)");
       at != std::string::npos;
       at = led.find(R"("candidate":"queued","side":"candidate",)", at + 1)) {
    const std::size_t lead = led.find(R"("host_lead_ms":5,)", at);
    led.replace(lead, std::string(R"("host_lead_ms":5,)").size(), R"("host_lead_ms":35,)");
  }
  runner_.set_blocks_script(WriteBlocksScript(led));

  std::map<std::string, FixResult> fixes;
  for (const AbResult& result : Run()) fixes[result.fix.recipe] = result.fix;
  ASSERT_EQ(fixes.count("launch-bound"), 1u);
  ASSERT_EQ(fixes.count("queued"), 1u);
  const FixResult& paced = fixes.at("launch-bound");
  const FixResult& queued = fixes.at("queued");
  EXPECT_EQ(paced.status, "verified") << paced.detail;
  EXPECT_EQ(paced.host_paced, true);
  EXPECT_EQ(paced.baseline_host_paced, false);
  EXPECT_EQ(paced.host_lead_ms, 5.0) << "read from the blocks where no epoch began";
  EXPECT_EQ(paced.baseline_host_lead_ms, 100.0);
  EXPECT_THAT(paced.detail,
              HasSubstr("paced by the host: at its blocks' ends the host was 5.0 ms ahead of the "
                        "device, under a step (40.0 ms), against the baseline's 100.0 ms (a step "
                        "of 100.0 ms), so this speedup follows the host CPU's speed"));
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] launch-bound: paced by the host"));
  EXPECT_EQ(queued.host_paced, false) << "35 ms ahead of 40 ms steps";
  EXPECT_EQ(queued.detail.find("paced by the host"), std::string::npos) << queued.detail;
  EXPECT_EQ(progress_.str().find("[autotest] queued: paced by the host"), std::string::npos);
}

// On the host's clock (CPU) the blocks report no lead: every side is the host's, no pace is
// judged and no note is written.
TEST_F(Autotest, BlocksWithoutLeadsJudgeNoPace) {
  plan_.recipes = {Switchable("fast")};
  plan_.recipe_ids = {"fast"};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  runner_.set_blocks_script(
      WriteBlocksScript(BlocksJson({{"fast", 40.0}}, 5, 100.0, true, InRunNumericsJson({"fast"}))));

  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].fix.host_paced.has_value());
  EXPECT_FALSE(results[0].fix.baseline_host_paced.has_value());
  EXPECT_FALSE(results[0].fix.host_lead_ms.has_value());
  EXPECT_EQ(results[0].fix.detail.find("paced by the host"), std::string::npos);
}

// torch.compile switches between steps too: measured in the same run of blocks as TF32, its
// compile (its first candidate block's settle steps) reported apart as the fix's warm-up; with a
// knob the script builds once (pinned memory) it still needs processes.
TEST_F(Autotest, TorchCompileIsMeasuredInBlocksItsCompileReportedApart) {
  Recipe compiled = Knob("compiled", /*preserves_semantics=*/true);
  compiled.overrides = {};
  compiled.overrides.compile = true;
  Recipe pinned = compiled;
  pinned.id = "compiled-pinned";
  pinned.overrides.pin_memory = true;
  plan_.recipes = {compiled, Switchable("fast"), pinned};
  plan_.recipe_ids = {"compiled", "fast", "compiled-pinned"};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  std::string blocks = BlocksJson({{"compiled", 10.0}, {"fast", 15.0}}, 5, 20.0, true,
                                  InRunNumericsJson({"compiled", "fast"}));
  const std::string first_compiled = R"({"candidate":"compiled","side":"candidate","cycle":0,)";
  blocks.replace(blocks.find(first_compiled), first_compiled.size(),
                 first_compiled + R"("settle_ms":[2400,11],)");
  runner_.set_blocks_script(WriteBlocksScript(blocks));

  const std::vector<AbResult> results = Run();
  ASSERT_FALSE(runner_.blocks_runs().empty());
  EXPECT_EQ(runner_.blocks_runs().front(), "compiled,fast");
  ASSERT_GE(results.size(), 3u);
  const FixResult& compile = results[0].fix;
  EXPECT_EQ(compile.measured_in, "process");
  EXPECT_EQ(compile.warmup_s, 2.411) << "its first compiled block's settle steps";
  EXPECT_TRUE(compile.warmup_rounds.empty());
  EXPECT_FALSE(results[1].fix.warmup_s.has_value()) << "TF32 compiles nothing";
  EXPECT_EQ(results[2].fix.recipe, "compiled-pinned");
  EXPECT_EQ(results[2].fix.measured_in, "processes");
}

// torch.compile's costlier forms (compile_mode): `id`'s recipe compiles in `mode`.
Recipe CompileMode(const std::string& id, const std::string& mode) {
  Recipe recipe = Knob(id, /*preserves_semantics=*/true);
  recipe.overrides = {};
  recipe.overrides.compile_mode = mode;
  return recipe;
}

Recipe PlainCompile() {
  Recipe recipe = Knob("compiled", /*preserves_semantics=*/true);
  recipe.overrides = {};
  recipe.overrides.compile = true;
  return recipe;
}

// The compile modes wait for plain torch.compile: after it helped, they are measured in a run of
// blocks of their own, after every other candidate, each mode's compile reported apart.
TEST_F(Autotest, TheCompileModesRunAfterPlainCompileInARunOfTheirOwn) {
  plan_.recipes = {CompileMode("autotune", "max-autotune"), PlainCompile(),
                   CompileMode("regional", "regional")};
  plan_.recipe_ids = {"autotune", "compiled", "regional"};
  plan_.predicted_gain_ms = {{"autotune", 90.0}, {"regional", 90.0}};
  std::string blocks =
      BlocksJson({{"compiled", 10.0}, {"autotune", 8.0}, {"regional", 12.0}}, 5, 20.0, true,
                 InRunNumericsJson({"compiled", "autotune", "regional"}));
  const std::string first_autotuned = R"({"candidate":"autotune","side":"candidate","cycle":0,)";
  blocks.replace(blocks.find(first_autotuned), first_autotuned.size(),
                 first_autotuned + R"("settle_ms":[9000,8],)");
  runner_.set_blocks_script(WriteBlocksScript(blocks));
  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), (std::vector<std::string>{"compiled", "autotune,regional"}))
      << "plain compile first, whatever the modes' predicted gain";
  ASSERT_EQ(results.size(), 3u)
      << "no combination: the modes and plain compile are one model compiled three ways";
  for (const AbResult& result : results) {
    EXPECT_EQ(result.fix.status, "verified") << result.fix.recipe;
    EXPECT_EQ(result.fix.measured_in, "process") << result.fix.recipe;
    EXPECT_THAT(result.fix.detail, Not(HasSubstr("without plain torch.compile")));
  }
  EXPECT_EQ(results[0].fix.warmup_s, 9.008) << "its first block's settle steps: its compile";
}

// Where plain torch.compile was rejected (slower, or its numerics), no mode is tried: each is
// skipped with plain compile's verdict.
TEST_F(Autotest, ThePlainCompileRejectedSkipsTheCompileModes) {
  plan_.recipes = {PlainCompile(), CompileMode("autotune", "max-autotune")};
  plan_.recipe_ids = {"compiled", "autotune"};
  runner_.set_blocks_script(WriteBlocksScript(BlocksJson(
      {{"compiled", 30.0}, {"autotune", 8.0}}, 5, 20.0, true, InRunNumericsJson({"compiled"}))));
  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), std::vector<std::string>{"compiled"});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].fix.status, "rejected");
  EXPECT_EQ(results[1].fix.status, "skipped");
  EXPECT_THAT(results[1].fix.detail, StartsWith("not tried: compiled was rejected (slower than "
                                                "the baseline"));
  EXPECT_THAT(results[1].fix.detail, HasSubstr("a mode compiles the same graphs for longer"));
  EXPECT_TRUE(runner_.checked().empty()) << "no numerics process for the mode either";
}

// The modes' run of blocks is priced as the first run (twice it here: two modes against one
// candidate) and not started where that would not end within the budget: each mode is skipped and
// says why, and no mode goes to rounds of processes instead.
TEST_F(Autotest, TheCompileModesRunIsNotStartedWhereTheBudgetHasNoRoomForIt) {
  plan_.recipes = {PlainCompile(), CompileMode("autotune", "max-autotune"),
                   CompileMode("regional", "regional")};
  plan_.recipe_ids = {"compiled", "autotune", "regional"};
  // The first run takes 1.1 s or more, so at most 1.9 s are left for a run priced at 2.2 s or
  // more: a busier machine only makes both longer.
  budget_ = AutotestBudget(std::chrono::seconds(3));
  runner_.set_blocks_script(WriteBlocksScript(
      BlocksJson({{"compiled", 10.0}, {"autotune", 8.0}, {"regional", 12.0}}, 5, 20.0, true,
                 InRunNumericsJson({"compiled", "autotune", "regional"})),
      "sleep 1.1"));
  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), std::vector<std::string>{"compiled"});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].fix.status, "verified");
  for (const AbResult& mode : {results[1], results[2]}) {
    EXPECT_EQ(mode.fix.status, "skipped") << mode.fix.recipe;
    EXPECT_THAT(mode.fix.detail,
                StartsWith("not tried: a run of blocks for torch.compile's modes, priced at "))
        << mode.fix.recipe;
    EXPECT_THAT(mode.fix.detail, HasSubstr("does not fit the autotest budget (3s)"));
  }
  EXPECT_EQ(runner_.benchmark_runs(), 0) << "no rounds of processes for the modes either";
}

// Without plain torch.compile among the candidates, a mode is tried and says so.
TEST_F(Autotest, ACompileModeWithoutPlainCompileSaysItRanWithoutItsVerdict) {
  plan_.recipes = {CompileMode("regional", "regional")};
  plan_.recipe_ids = {"regional"};
  runner_.set_blocks_script(WriteBlocksScript(
      BlocksJson({{"regional", 12.0}}, 5, 20.0, true, InRunNumericsJson({"regional"}))));
  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), std::vector<std::string>{"regional"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].fix.status, "verified");
  EXPECT_THAT(results[0].fix.detail,
              HasSubstr("tried without plain torch.compile's verdict (none in this autotest)"));
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] torch.compile's modes tried without plain "
                                         "torch.compile's verdict"));
}

// A script that ends before a candidate's second pair of blocks leaves that candidate to rounds
// of processes; the candidates it did decide keep their blocks.
TEST_F(Autotest, ACandidateTheScriptsEndLeftUndecidedIsMeasuredInProcesses) {
  plan_.recipes = {Switchable("fast"), Switchable("faster")};
  plan_.recipe_ids = {"fast", "faster"};
  // Two pairs of fast's, then one of faster's, then the script ended.
  std::string blocks = BlocksJson({{"fast", 10.0}, {"faster", 8.0}}, 2, 20.0, false);
  runner_.set_blocks_script(testing::WriteScript(
      dir_ / "blocks.sh",
      "cat > \"$1\" <<'EOF'\n" +
          blocks.replace(blocks.rfind(R"({"candidate":"faster")") - 1, std::string::npos,
                         R"(],"complete":false,"samples_per_step":8,)"
                         R"("loss":1.0,"numerics":)" +
                             InRunNumericsJson({"fast", "faster"}) + "}") +
          "\nEOF"));
  const std::vector<AbResult> results = Run();
  ASSERT_GE(results.size(), 2u);
  EXPECT_EQ(results[0].fix.measured_in, "process");
  EXPECT_EQ(results[0].fix.rounds, 2);
  EXPECT_THAT(results[0].fix.detail, HasSubstr("the script ended after 2 pairs of full blocks"));
  EXPECT_EQ(results[1].fix.measured_in, "processes");
  EXPECT_EQ(results[1].fix.status, "verified");
  ASSERT_TRUE(results[1].fix.numerics.has_value());
  EXPECT_EQ(results[1].fix.numerics->checked_in, "process") << "its check in the run stands";
  EXPECT_EQ(runner_.checked(), std::vector<std::string>{"faster+fast"})
      << "no numerics process for the singles; the combination's run wrote no check of it";
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] faster: the script ended after 1 pair of full blocks of "
                        "faster (2 decide): measured in processes\n"));
}

// A blocks run that fails, or writes nothing, costs the candidates nothing but time: each is
// measured in processes.
TEST_F(Autotest, ABlocksRunThatFailsLeavesEveryCandidateToProcesses) {
  plan_.recipes = {Switchable("fast")};
  plan_.recipe_ids = {"fast"};
  runner_.set_blocks_script(testing::WriteScript(dir_ / "blocks.sh", "exit 3"));
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].fix.status, "verified");
  EXPECT_EQ(results[0].fix.measured_in, "processes");
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] the run that switched them failed (exit status 3): "
                        "each is measured in processes\n"));
}

// A candidate whose outputs moved beyond its tolerance inside the run is rejected on that check:
// no benchmark, no numerics process; one whose check could not run there goes to processes.
TEST_F(Autotest, NumericsCheckedInsideTheRunRejectOrFallBackToProcesses) {
  plan_.recipes = {Switchable("fast"), Switchable("faster")};
  plan_.recipe_ids = {"fast", "faster"};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  const std::string numerics =
      R"j({"fast":{"max_abs_diff":0.4,"max_rel_diff":0.2,"tolerance":0.001,)j"
      R"j("detail":"output[0].loss: relative difference 2.00e-01 (tolerance 1e-03)"},)j"
      R"j("faster":{"error":"the model's forward under the candidate raised RuntimeError: no"}})j";
  runner_.set_blocks_script(testing::WriteScript(
      dir_ / "blocks.sh",
      "cat > \"$1\" <<'EOF'\n" +
          BlocksJson({{"fast", 10.0}, {"faster", 8.0}}, 5, 20.0, true, numerics) + "\nEOF"));
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].fix.status, "rejected");
  ASSERT_TRUE(results[0].fix.numerics.has_value());
  EXPECT_EQ(results[0].fix.numerics->checked_in, "process");
  EXPECT_EQ(results[0].fix.numerics->max_rel_diff, 0.2);
  EXPECT_THAT(results[0].fix.detail, HasSubstr("numerics outside tolerance: output[0].loss"));
  EXPECT_EQ(results[0].fix.rounds, 0) << "not measured";
  EXPECT_EQ(results[1].fix.status, "verified");
  EXPECT_EQ(results[1].fix.measured_in, "processes");
  EXPECT_EQ(runner_.checked(), std::vector<std::string>{"faster"});
  EXPECT_THAT(testing::ReadFile(dir_ / "order.log"), Not(HasSubstr("fast ")));
  EXPECT_THAT(progress_.str(),
              HasSubstr("[autotest] faster: its numerics check inside the run failed: the "
                        "model's forward under the candidate raised RuntimeError: no: checked "
                        "and measured in processes\n"));
}

// Where a recipe measured in processes helps too, the best combination of all is a second one,
// in processes: the combination of the switched knobs keeps its blocks.
TEST_F(Autotest, ARecipeInProcessesThatHelpsMakesASecondCombinationInProcesses) {
  Recipe rival = Knob("rival", /*preserves_semantics=*/true);
  rival.overrides = {};
  rival.overrides.pin_memory = true;
  plan_.recipes = {Switchable("fast"), Switchable("faster"), rival};
  plan_.recipe_ids = {"rival", "fast", "faster"};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  runner_.set_blocks_script(WriteBlocksScript(FastFasterAndBoth()));
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].fix.recipe, "rival") << "the singles in the findings' order";
  EXPECT_EQ(results[0].fix.measured_in, "processes");
  EXPECT_EQ(results[3].fix.recipe, "faster+fast");
  EXPECT_EQ(results[3].fix.measured_in, "process");
  EXPECT_EQ(results[4].fix.recipe, "faster+rival+fast") << "fastest first: 2.5x, 2.2x, 2x";
  EXPECT_EQ(results[4].fix.measured_in, "processes");
  EXPECT_EQ(results[4].fix.status, "verified");
  const std::string order = testing::ReadFile(dir_ / "order.log");
  EXPECT_THAT(order, HasSubstr("faster+rival+fast unset"));
  EXPECT_THAT(order, Not(HasSubstr("faster+fast "))) << "no process for the switched combination";
}

// The budget that processes spend cannot leave the switched knobs' combination out: it is
// measured right after them, before any candidate in processes.
TEST_F(Autotest, TheSwitchedKnobsCombinationIsMeasuredBeforeAnyProcess) {
  Recipe slow = Knob("same");
  slow.overrides = {};
  slow.overrides.pin_memory = true;
  plan_.recipes = {Switchable("fast"), Switchable("faster"), slow};
  plan_.recipe_ids = {"same", "fast", "faster"};
  plan_.predicted_gain_ms = {{"same", 100.0}};
  runner_.set_check([](const CandidateSpec&) { return Within(); });
  // Each blocks run notes itself in the benchmark processes' log.
  runner_.set_blocks_script(
      WriteBlocksScript(FastFasterAndBoth(), "echo blocks >> \"" + (dir_ / "order.log") + "\""));
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[3].fix.recipe, "faster+fast");
  EXPECT_EQ(results[3].fix.status, "verified");
  EXPECT_THAT(testing::ReadFile(dir_ / "order.log"), StartsWith("blocks\nblocks\nbaseline unset\n"))
      << "the singles' run, the combination's run, then the processes, whatever their gain";
}

// Recipes measured in processes are tried in the order of their predicted gain per benchmark, so
// that a budget cut leaves out the least promising; the results keep the findings' order.
TEST_F(Autotest, TriesTheRecipesByPredictedGainAndReportsThemInTheFindingsOrder) {
  plan_.recipes = {Knob("same"), Knob("fast"), Knob("faster")};
  plan_.recipe_ids = {"same", "fast", "faster"};
  plan_.predicted_gain_ms = {{"fast", 4.0}, {"faster", 12.0}};
  plan_.settings.max_rounds = 2;
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].fix.recipe, "same");
  EXPECT_EQ(results[1].fix.recipe, "fast");
  EXPECT_EQ(results[2].fix.recipe, "faster");
  const std::string order = testing::ReadFile(dir_ / "order.log");
  EXPECT_LT(order.find("faster unset"), order.find("fast unset"));
  EXPECT_LT(order.find("fast unset"), order.find("same unset")) << "no prediction: last";
}

// Pairs of blocks that disagree (an interval across the noise band: 0.53x-1.61x says nothing) get
// a second run of their own with more cycles; a candidate the first run decided does not.
TEST_F(Autotest, AWideIntervalGetsMorePairsInASecondRunUpToABound) {
  plan_.recipes = {Switchable("fast"), Switchable("noisy")};
  plan_.recipe_ids = {"fast", "noisy"};
  plan_.settings.max_rounds = 3;
  const std::string first = BlocksJson({{"fast", 10.0}, {"noisy", 20.0, 5.0}}, 3, 20.0, true,
                                       InRunNumericsJson({"fast", "noisy"}));
  const std::string second =
      BlocksJson({{"noisy", 20.0, 5.0}}, 9, 20.0, true, InRunNumericsJson({"noisy"}));
  runner_.set_blocks_script(FirstThenSecond(first, second));
  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), (std::vector<std::string>{"fast,noisy", "noisy"}));
  EXPECT_EQ(runner_.last_design().cycles, 9) << "up to 4 times the first run's 3 pairs";
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].fix.rounds, 3);
  EXPECT_EQ(results[0].fix.status, "verified");
  const FixResult& noisy = results[1].fix;
  EXPECT_EQ(noisy.measured_in, "process");
  EXPECT_EQ(noisy.rounds, 12);
  EXPECT_EQ(noisy.status, "no-change");
  ASSERT_TRUE(noisy.speedup_ci_low && noisy.speedup_ci_high);
  EXPECT_GT(*noisy.speedup_ci_low, 0.8) << "narrower than after 3 pairs";
  EXPECT_LT(*noisy.speedup_ci_high, 1.3);
  EXPECT_THAT(noisy.detail,
              HasSubstr("9 of its 12 pairs of full blocks from a second run of the script"));
  EXPECT_THAT(progress_.str(), HasSubstr("[autotest] noisy: 95 % interval "));
}

// Every step of a BlocksJson run waiting `wait_ms` for its batch, every block peaking at `peak_mb`.
std::string WithWaitsAndPeaks(std::string blocks, double wait_ms, double peak_mb) {
  const std::string wait = std::to_string(wait_ms);
  const std::string fields = R"("loader_wait_ms":[)" + wait + "," + wait + "," + wait + "," + wait +
                             "," + wait + R"(],"peak_memory_mb":)" + std::to_string(peak_mb);
  const std::string null_peak = R"("peak_memory_mb":null)";
  for (std::size_t at = blocks.find(null_peak); at != std::string::npos;
       at = blocks.find(null_peak, at + fields.size())) {
    blocks.replace(at, null_peak.size(), fields);
  }
  return blocks;
}

// A candidate's waits for batches and its peak memory are read from the blocks of both runs, as
// its pairs are: 3 blocks a side waiting 1 ms a step in the first, 9 waiting 3 ms in the second.
TEST_F(Autotest, AWideIntervalsFiguresComeFromTheBlocksOfBothRuns) {
  plan_.recipes = {Switchable("noisy")};
  plan_.recipe_ids = {"noisy"};
  plan_.settings.max_rounds = 3;
  const std::string first = WithWaitsAndPeaks(
      BlocksJson({{"noisy", 20.0, 5.0}}, 3, 20.0, true, InRunNumericsJson({"noisy"})), 1.0, 800.0);
  const std::string second = WithWaitsAndPeaks(
      BlocksJson({{"noisy", 20.0, 5.0}}, 9, 20.0, true, InRunNumericsJson({"noisy"})), 3.0, 900.0);
  runner_.set_blocks_script(FirstThenSecond(first, second));
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(runner_.blocks_runs(), (std::vector<std::string>{"noisy", "noisy"}));
  ASSERT_EQ(results.size(), 1u);
  const FixResult& noisy = results[0].fix;
  EXPECT_EQ(noisy.rounds, 12);
  ASSERT_TRUE(noisy.loader_wait_ms && noisy.baseline_loader_wait_ms);
  EXPECT_NEAR(*noisy.loader_wait_ms, (3 * 1.0 + 9 * 3.0) / 12, 1e-9);
  EXPECT_NEAR(*noisy.baseline_loader_wait_ms, (3 * 1.0 + 9 * 3.0) / 12, 1e-9);
  EXPECT_EQ(noisy.peak_memory_mb, std::optional<double>(900.0));
  EXPECT_EQ(noisy.baseline_peak_memory_mb, std::optional<double>(900.0));
}

// A second run that fails leaves the verdict on the first run's pairs, and says so.
TEST_F(Autotest, AWideIntervalWhoseSecondRunFailsRestsOnTheFirstRunsPairs) {
  plan_.recipes = {Switchable("noisy")};
  plan_.recipe_ids = {"noisy"};
  plan_.settings.max_rounds = 3;
  runner_.set_blocks_script(WriteBlocksScript(
      BlocksJson({{"noisy", 20.0, 5.0}}, 3, 20.0, true, InRunNumericsJson({"noisy"})),
      "[ -e \"" + (dir_ / "first") + "\" ] && exit 3\ntouch \"" + (dir_ / "first") + "\""));
  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), (std::vector<std::string>{"noisy", "noisy"}));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].fix.measured_in, "process");
  EXPECT_EQ(results[0].fix.rounds, 3);
  EXPECT_THAT(results[0].fix.detail, HasSubstr("the second run of blocks gave none: the run that "
                                               "switched them failed (exit status 3)"));
  EXPECT_THAT(progress_.str(), HasSubstr("(exit status 3): the first run's pairs stand\n"));
}

// A second run that would not end within the budget is not started: the verdict rests on the
// first run's pairs and says why there are no more.
TEST_F(Autotest, AWideIntervalGetsNoSecondRunTheBudgetHasNoRoomFor) {
  plan_.recipes = {Switchable("noisy")};
  plan_.recipe_ids = {"noisy"};
  plan_.settings.max_rounds = 3;
  // The first run takes longer than what is left of the budget after it.
  budget_ = AutotestBudget(std::chrono::seconds(1));
  runner_.set_blocks_script(WriteBlocksScript(
      BlocksJson({{"noisy", 20.0, 5.0}}, 3, 20.0, true, InRunNumericsJson({"noisy"})),
      "sleep 1.1"));
  const std::vector<AbResult> results = Run();
  EXPECT_EQ(runner_.blocks_runs(), std::vector<std::string>{"noisy"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].fix.rounds, 3);
  EXPECT_EQ(results[0].fix.status, "no-change");
  EXPECT_THAT(results[0].fix.detail,
              HasSubstr("more pairs of blocks did not fit the autotest budget (1s)"));
}

TEST_F(Autotest, ACandidateTheBudgetLeavesNoTimeForIsSkippedAndSaysSo) {
  plan_.recipes = {Knob("fast"), Knob("faster")};
  plan_.recipe_ids = {"fast", "faster"};
  budget_ = AutotestBudget(std::chrono::seconds(90),
                           AutotestBudget::Clock::now() - std::chrono::seconds(91));
  const std::vector<AbResult> results = Run();
  ASSERT_EQ(results.size(), 2u);
  for (const AbResult& result : results) {
    EXPECT_EQ(result.fix.status, "skipped");
    EXPECT_EQ(result.fix.detail, "not tried: the autotest budget (1m30s) was spent");
  }
  EXPECT_EQ(runner_.benchmark_runs(), 0);
}

}  // namespace
}  // namespace advisor
