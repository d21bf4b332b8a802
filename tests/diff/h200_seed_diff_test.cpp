// The two real reports of issue #30's bar, read back and compared: the seed ViT script before
// and after its gather-to-index fix, bisected on an H200 (bash scripts/gpu-check.sh diff,
// 2026-11-29), trimmed to what the diff reads (fixtures/trim_report.py). A GPU-bound step: the
// host's time in the profiled windows explains half of the step's change, the device's nearly
// all of it.
#include <gtest/gtest.h>

#include "engine/diff/report_diff.h"
#include "engine/diff/report_reader.h"

namespace advisor {
namespace {

const std::string kFixtures = ADVISOR_DIFF_FIXTURES_DIR "/h200_seed/";

ReportDiff SeedDiff() {
  return DiffReports(ReadReportJson(kFixtures + "before.json"),
                     ReadReportJson(kFixtures + "after.json"));
}

TEST(H200SeedDiff, TheModulesDeviceTimeExplainsTheStepsChangeWithPatchDropFirst) {
  const ReportDiff diff = SeedDiff();
  EXPECT_EQ(diff.step.verdict, "faster");
  EXPECT_LT(diff.step.delta_ms, -4);
  ASSERT_EQ(diff.modules_time, DiffTime::kProfiledDevice);
  ASSERT_FALSE(diff.modules.empty());
  EXPECT_EQ(diff.modules.front().part.name, "patch_drop");
  // Its kernels: 4.96 ms a step before, 0.47 after.
  EXPECT_NEAR(diff.modules.front().part.delta_ms, -4.49, 0.01);
  ASSERT_TRUE(diff.device_not_attributed_ms);
  EXPECT_GE(ModulesExplainedShare(diff), 0.95)
      << "not in the device's time: " << *diff.device_not_attributed_ms;
  // No other module moved by a tenth of it.
  for (std::size_t i = 1; i < diff.modules.size(); ++i) {
    EXPECT_LT(std::abs(diff.modules[i].part.delta_ms), 0.45) << diff.modules[i].part.name;
  }
}

TEST(H200SeedDiff, ReportsBeforeTheSelfDeviceTimeAndTheTimedPhasesSaySo) {
  const ReportDiff diff = SeedDiff();
  // These reports predate ops[].self_gpu_ms and step.timed_phases_ms: the ops fall back to host
  // self time and the phases to the profiled windows', each with its note.
  EXPECT_EQ(diff.ops_time, DiffTime::kProfiledHost);
  EXPECT_EQ(diff.phases_time, DiffTime::kProfiledHost);
  std::string notes;
  for (const std::string& note : diff.notes) notes += note + "\n";
  EXPECT_NE(notes.find("neither report has ops[].self_gpu_ms"), std::string::npos) << notes;
  EXPECT_NE(notes.find("neither report has step.timed_phases_ms"), std::string::npos) << notes;
}

}  // namespace
}  // namespace advisor
