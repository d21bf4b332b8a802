#include "engine/diff/report_diff.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "engine/diff/module_frontier.h"
#include "tests/diff/diff_reports.h"

namespace advisor {
namespace {

using testing::AfterReport;
using testing::BeforeReport;

std::map<std::string, const ModuleDelta*> ModulesByPath(const ReportDiff& diff) {
  std::map<std::string, const ModuleDelta*> out;
  for (const ModuleDelta& module : diff.modules) {
    out[module.part.name + (module.own_time ? " (own)" : "")] = &module;
  }
  return out;
}

double Sum(const std::vector<DeltaPart>& parts) {
  double sum = 0;
  for (const DeltaPart& part : parts) sum += part.delta_ms;
  return sum;
}

TEST(ReportDiff, PhasesAndTheUnattributedRestAddUpToTheStepsChange) {
  RunReport after = AfterReport();
  // The profiled step lost 1 ms more than the unprofiled one: that ms is not attributed.
  after.step.backward_ms -= 1;
  const ReportDiff diff = DiffReports(BeforeReport(), after);
  EXPECT_DOUBLE_EQ(diff.step.delta_ms, -30);
  EXPECT_NEAR(Sum(diff.phases) + diff.not_attributed_ms, diff.step.delta_ms, 1e-9);
  EXPECT_NEAR(diff.not_attributed_ms, 1, 1e-9);
  EXPECT_NEAR(ExplainedShare(diff.step.delta_ms, diff.not_attributed_ms), 29.0 / 30, 1e-9);
}

TEST(ReportDiff, ModulesWithTheOtherPhasesExplainTheStepWithinFivePercent) {
  const ReportDiff diff = DiffReports(BeforeReport(), AfterReport());
  double modules = 0;
  for (const ModuleDelta& module : diff.modules) modules += module.part.delta_ms;
  double other_phases = 0;
  for (const DeltaPart& phase : diff.phases) {
    if (phase.name != "forward" && phase.name != "backward") other_phases += phase.delta_ms;
  }
  // The forward and backward lost 30 ms; the modules' medians hold 29 of them.
  EXPECT_NEAR(modules, -29, 1e-9);
  EXPECT_NEAR(diff.modules_not_attributed_ms, -1, 1e-9);
  const double explained = modules + other_phases;
  EXPECT_LE(std::abs(diff.step.delta_ms - explained), 0.05 * std::abs(diff.step.delta_ms));
}

TEST(ReportDiff, SplitsAModuleOnlyWhereBothRunsMeasuredItsChildren) {
  const ReportDiff diff = DiffReports(BeforeReport(), AfterReport());
  const auto modules = ModulesByPath(diff);
  // blocks.1's children were measured on both sides: it is split, its own time kept apart.
  ASSERT_TRUE(modules.count("blocks.1.attn"));
  ASSERT_TRUE(modules.count("blocks.1 (own)"));
  EXPECT_NEAR(modules.at("blocks.1 (own)")->part.delta_ms, -1, 1e-9);
  EXPECT_FALSE(modules.count("blocks.1"));
  // Only the before measured blocks.1.mlp's children: the deepest common level is blocks.1.mlp.
  ASSERT_TRUE(modules.count("blocks.1.mlp"));
  EXPECT_NEAR(modules.at("blocks.1.mlp")->part.delta_ms, -30, 1e-9);
  EXPECT_FALSE(modules.count("blocks.1.mlp.window"));
  // The largest change first.
  EXPECT_EQ(diff.modules.front().part.name, "blocks.1.mlp");
  // A container no level timed (blocks) is skipped: its instances hang from the root.
  EXPECT_TRUE(modules.count("blocks.0"));
  EXPECT_FALSE(modules.count("blocks"));
}

TEST(ReportDiff, AModuleOnOneSideOnlyCountsItsWholeTime) {
  const ReportDiff diff = DiffReports(BeforeReport(), AfterReport());
  const ModuleDelta& norm = *ModulesByPath(diff).at("blocks.1.norm");
  EXPECT_FALSE(norm.part.before_ms);
  ASSERT_TRUE(norm.part.after_ms);
  EXPECT_DOUBLE_EQ(norm.part.delta_ms, 2);
  const ReportDiff back = DiffReports(AfterReport(), BeforeReport());
  EXPECT_DOUBLE_EQ(ModulesByPath(back).at("blocks.1.norm")->part.delta_ms, -2);
}

TEST(ReportDiff, TheDeeperSideIsComparedAtTheShallowerSidesLevel) {
  // Either way round, the level both measured.
  for (const bool reversed : {false, true}) {
    const std::vector<FrontierModule> frontier =
        reversed ? ModuleFrontier(AfterReport().modules, BeforeReport().modules)
                 : ModuleFrontier(BeforeReport().modules, AfterReport().modules);
    std::vector<std::string> paths;
    for (const FrontierModule& module : frontier) {
      paths.push_back(module.path + (module.own_time ? " (own)" : ""));
    }
    EXPECT_EQ(paths,
              (std::vector<std::string>{"blocks.0", "blocks.1.attn", "blocks.1.mlp",
                                        "blocks.1.norm", "blocks.1 (own)", "head", "patch_embed"}));
  }
}

TEST(ReportDiff, OpsBySelfTimeWithWhatNoOpHolds) {
  const ReportDiff diff = DiffReports(BeforeReport(), AfterReport());
  ASSERT_GE(diff.ops.size(), 4u);
  EXPECT_EQ(diff.ops[0].part.name, "GatherBackward0");
  EXPECT_EQ(diff.ops[0].phase, "backward");
  EXPECT_DOUBLE_EQ(diff.ops[0].part.delta_ms, -24);
  EXPECT_FALSE(diff.ops[0].part.after_ms);
  EXPECT_EQ(diff.ops[2].part.name, "IndexBackward0");
  EXPECT_FALSE(diff.ops[2].part.before_ms);
  EXPECT_NEAR(diff.ops_not_attributed_ms, -3, 1e-9);
}

TEST(ReportDiff, TheModuleTableExplainsWhatTheForwardAndBackwardChanged) {
  RunReport after = AfterReport();
  // The optimizer 2 ms shorter: the step lost 32 ms, the forward and backward 30 of them, which
  // the modules (-29) and the time outside them (-1) hold.
  after.step.optimizer_ms -= 2;
  after.step.median_ms -= 2;
  after.step.profiled_ms -= 2;
  const ReportDiff diff = DiffReports(BeforeReport(), after);
  ASSERT_DOUBLE_EQ(diff.step.delta_ms, -32);
  EXPECT_NEAR(ModulesExplainedShare(diff), 30.0 / 32, 1e-9);
}

// The before's windows stretched by other work: the one that measured blocks.1's children ran
// at twice the step (its modules' times doubled), the baseline window whose ops and phases the
// report holds at 1.5 times. Each time is its share of its window's step: the diff is the same.
TEST(ReportDiff, HostTimesAreTakenAsTheirShareOfTheirWindowsStep) {
  RunReport stretched = BeforeReport();
  for (ModuleStats& module : stretched.modules) {
    if (!module.measured) continue;
    const bool deeper_window = module.path.rfind("blocks.1.", 0) == 0;
    const double stretch = deeper_window ? 2 : 1;
    module.forward_ms *= stretch;
    module.backward_ms *= stretch;
    module.window_step_ms = stretch * stretched.step.median_ms;
  }
  stretched.step.profiled_ms *= 1.5;
  stretched.step.forward_ms *= 1.5;
  stretched.step.backward_ms *= 1.5;
  for (OpTime& op : stretched.ops) op.self_ms *= 1.5;

  const ReportDiff plain = DiffReports(BeforeReport(), AfterReport());
  const ReportDiff diff = DiffReports(stretched, AfterReport());
  ASSERT_EQ(diff.modules.size(), plain.modules.size());
  for (std::size_t i = 0; i < diff.modules.size(); ++i) {
    EXPECT_EQ(diff.modules[i].part.name, plain.modules[i].part.name);
    EXPECT_NEAR(diff.modules[i].part.delta_ms, plain.modules[i].part.delta_ms, 1e-9)
        << diff.modules[i].part.name;
  }
  EXPECT_NEAR(diff.modules_not_attributed_ms, plain.modules_not_attributed_ms, 1e-9);
  EXPECT_NEAR(ModulesExplainedShare(diff), 1, 1e-9);
  ASSERT_EQ(diff.ops.size(), plain.ops.size());
  EXPECT_NEAR(diff.ops[0].part.delta_ms, -24, 1e-9);
  EXPECT_NEAR(diff.ops_not_attributed_ms, plain.ops_not_attributed_ms, 1e-9);
}

TEST(ReportDiff, NamesTheFindingsThatChanged) {
  const ReportDiff diff = DiffReports(BeforeReport(), AfterReport());
  std::map<std::string, const FindingChange*> by_rule;
  for (const FindingChange& change : diff.findings) by_rule[change.finding.rule] = &change;
  ASSERT_EQ(by_rule.size(), 3u);
  EXPECT_EQ(by_rule.at("gather-backward")->change, "resolved");
  EXPECT_EQ(by_rule.at("fp32-matmul")->change, "new");
  EXPECT_EQ(by_rule.at("tiny-kernels")->change, "severity");
  EXPECT_EQ(by_rule.at("tiny-kernels")->before_severity, "low");
  EXPECT_EQ(by_rule.at("tiny-kernels")->finding.severity, Severity::kMedium);
  EXPECT_EQ(diff.findings_unchanged, 1);
  ASSERT_EQ(diff.fixes.size(), 1u);
  EXPECT_EQ(diff.fixes[0].recipe, "gather-to-index");
  EXPECT_EQ(diff.fixes[0].before_status, "verified");
  EXPECT_EQ(diff.fixes[0].after_status, "");
  EXPECT_EQ(diff.before_hotspot, "blocks.1.mlp.window -> GatherBackward0 (backward)");
}

TEST(ReportDiff, ConfirmsAChangeBeyondTheStepsSpread) {
  const ReportDiff diff = DiffReports(BeforeReport(), AfterReport());
  EXPECT_EQ(diff.step.verdict, "faster");
  ASSERT_TRUE(diff.step.delta_low_ms && diff.step.delta_high_ms);
  EXPECT_LT(*diff.step.delta_low_ms, -30);
  EXPECT_GT(*diff.step.delta_high_ms, -30);
  EXPECT_LT(*diff.step.delta_high_ms, 0);
  EXPECT_EQ(diff.step.before_steps, 5);
}

TEST(ReportDiff, ASmallChangeInsideTheSpreadIsNoChange) {
  RunReport after = BeforeReport();
  after.step.samples_ms = {90, 110, 100.5, 95, 104};
  after.step.median_ms = 100.5;
  const ReportDiff diff = DiffReports(BeforeReport(), after);
  EXPECT_EQ(diff.step.verdict, "no-change");
  EXPECT_NE(diff.step.why.find("includes 0"), std::string::npos) << diff.step.why;
  ASSERT_TRUE(diff.step.delta_low_ms && diff.step.delta_high_ms);
  EXPECT_LT(*diff.step.delta_low_ms, 0);
  EXPECT_GT(*diff.step.delta_high_ms, 0);
}

TEST(ReportDiff, WithoutStepSamplesThereIsNoInterval) {
  RunReport before = BeforeReport();
  before.step.samples_ms.clear();
  const ReportDiff diff = DiffReports(before, AfterReport());
  EXPECT_EQ(diff.step.verdict, "");
  EXPECT_FALSE(diff.step.delta_low_ms);
  EXPECT_NE(diff.step.why.find("samples_ms"), std::string::npos);
  EXPECT_DOUBLE_EQ(diff.step.delta_ms, -30);
}

TEST(ReportDiff, AWaitForInputComparesMeans) {
  RunReport before = BeforeReport();
  before.data = DataWait{};
  before.data->wait_ms = 5;
  before.step.mean_ms = 120;
  const ReportDiff diff = DiffReports(before, AfterReport());
  EXPECT_EQ(diff.step.statistic, "mean");
  EXPECT_DOUBLE_EQ(diff.step.delta_ms, -50);
  EXPECT_EQ(diff.phases.front().name, "data");
  EXPECT_DOUBLE_EQ(diff.phases.front().delta_ms, -5);
}

}  // namespace
}  // namespace advisor
