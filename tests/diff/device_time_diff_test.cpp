// A GPU-bound step compared in device time: where both runs' levels recorded kernels, the modules
// split the change of the device's time and the ops by what each launched itself, not by the
// host's time, which on a GPU holds the host's waits for the device.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "engine/diff/report_diff.h"

namespace advisor {
namespace {

ModuleStats Module(const std::string& path, double host_ms, double gpu_ms) {
  ModuleStats module;
  module.path = path;
  module.forward_ms = host_ms / 2;
  module.backward_ms = host_ms / 2;
  module.gpu_ms = gpu_ms;
  module.measured = true;
  return module;
}

OpTime Op(const std::string& name, const std::string& phase, double self_ms, double gpu_ms,
          double self_gpu_ms) {
  OpTime op;
  op.name = name;
  op.phase = phase;
  op.calls = 1;
  op.ms = self_ms;
  op.self_ms = self_ms;
  op.gpu_ms = gpu_ms;
  op.self_gpu_ms = self_gpu_ms;
  return op;
}

// A step of `step_ms` whose levels ranked by device time, with `kernel_ms` of kernels and
// `memcpy_ms` of copies a step; its profiled window's step 10 ms longer, synchronised at each
// phase's end.
RunReport OnDevice(double step_ms, double kernel_ms, double memcpy_ms) {
  RunReport report;
  report.run.mode = Door::kScript;
  report.run.device = "cuda";
  report.step.samples_ms = {step_ms - 0.1, step_ms, step_ms + 0.1, step_ms - 0.05, step_ms + 0.05};
  report.step.median_ms = report.step.mean_ms = step_ms;
  report.step.profiled_ms = step_ms + 10;
  report.step.forward_ms = 30;
  report.step.backward_ms = step_ms - 30;
  report.step.optimizer_ms = 10;
  report.levels_ranked_by = "device";
  report.gpu = GpuSummary{};
  report.gpu->kernel_ms = kernel_ms;
  report.gpu->memcpy_ms = memcpy_ms;
  return report;
}

// Before: blocks.1.mlp's gather backward, a sort-based scatter of 24 ms on the device. The host
// times say otherwise: blocks.0's host time grows as the host waits for the device there.
RunReport Before() {
  RunReport report = OnDevice(100, 90, 2);
  report.modules = {Module("patch_embed", 2, 5),   Module("blocks.0", 6, 20),
                    Module("blocks.1", 8, 50),     Module("blocks.1.attn", 3, 15),
                    Module("blocks.1.mlp", 4, 33), Module("head", 1, 3)};
  report.ops = {Op("GatherBackward0", "backward", 0.1, 24, 0),
                Op("aten::scatter_add_", "backward", 0.2, 24, 24),
                Op("AddmmBackward0", "backward", 0.3, 30, 0),
                Op("aten::mm", "backward", 0.5, 30, 30), Op("aten::copy_", "loss", 4, 0.1, 0.1)};
  return report;
}

// After indexing: blocks.1.mlp 24 ms shorter on the device, 0.5 ms more copies outside the
// modules, the step 25 ms shorter.
RunReport After() {
  RunReport report = OnDevice(75, 66, 2.5);
  report.modules = {Module("patch_embed", 2, 5),  Module("blocks.0", 11, 20),
                    Module("blocks.1", 7, 26),    Module("blocks.1.attn", 3, 15),
                    Module("blocks.1.mlp", 3, 9), Module("head", 1, 3)};
  report.ops = {Op("IndexBackward0", "backward", 0.1, 1, 0),
                Op("aten::index_put_", "backward", 0.2, 1, 1),
                Op("AddmmBackward0", "backward", 0.3, 30, 0),
                Op("aten::mm", "backward", 0.5, 30, 30), Op("aten::copy_", "loss", 1, 0.1, 0.1)};
  return report;
}

std::map<std::string, double> DeltaByModule(const ReportDiff& diff) {
  std::map<std::string, double> out;
  for (const ModuleDelta& module : diff.modules) {
    out[module.part.name + (module.own_time ? " (own)" : "")] = module.part.delta_ms;
  }
  return out;
}

bool HasNoteWith(const ReportDiff& diff, const std::string& text) {
  for (const std::string& note : diff.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(DeviceTimeDiff, SplitsTheFrontierByTheModulesDeviceTime) {
  const ReportDiff diff = DiffReports(Before(), After());
  EXPECT_EQ(diff.modules_time, DiffTime::kProfiledDevice);
  const std::map<std::string, double> modules = DeltaByModule(diff);
  EXPECT_DOUBLE_EQ(modules.at("blocks.1.mlp"), -24);
  EXPECT_DOUBLE_EQ(modules.at("blocks.1.attn"), 0);
  EXPECT_DOUBLE_EQ(modules.at("blocks.1 (own)"), 0);
  // Its host time grew by 5 ms; its kernels did not change.
  EXPECT_DOUBLE_EQ(modules.at("blocks.0"), 0);
  EXPECT_EQ(diff.modules.front().part.name, "blocks.1.mlp");
}

TEST(DeviceTimeDiff, KeepsTheKernelsOutsideTheModulesAndTheDevicesIdleTimeApart) {
  const ReportDiff diff = DiffReports(Before(), After());
  double modules = 0;
  for (const ModuleDelta& module : diff.modules) modules += module.part.delta_ms;
  // The device's time went from 92 to 68.5 ms: the modules hold -24, the copies outside them +0.5.
  EXPECT_NEAR(diff.modules_not_attributed_ms, 0.5, 1e-9);
  EXPECT_NEAR(modules + diff.modules_not_attributed_ms, -23.5, 1e-9);
  // The step lost 25 ms: the 1.5 ms the device's time does not hold stays not attributed.
  ASSERT_TRUE(diff.device_not_attributed_ms);
  EXPECT_NEAR(*diff.device_not_attributed_ms, -1.5, 1e-9);
  EXPECT_NEAR(modules + diff.modules_not_attributed_ms + *diff.device_not_attributed_ms,
              diff.step.delta_ms, 1e-9);
  EXPECT_NEAR(ModulesExplainedShare(diff), 1 - 1.5 / 25, 1e-9);
}

TEST(DeviceTimeDiff, ComparesOpsByTheDeviceTimeEachLaunchedItself) {
  const ReportDiff diff = DiffReports(Before(), After());
  EXPECT_EQ(diff.ops_time, DiffTime::kProfiledDevice);
  ASSERT_GE(diff.ops.size(), 2u);
  // The scatter that launched the kernels, not the autograd node around it nor the loss's copy,
  // whose host time is a wait for the device.
  EXPECT_EQ(diff.ops[0].part.name, "aten::scatter_add_");
  EXPECT_DOUBLE_EQ(diff.ops[0].part.delta_ms, -24);
  EXPECT_EQ(diff.ops[1].part.name, "aten::index_put_");
  for (const OpDelta& op : diff.ops) {
    if (op.part.name != "aten::scatter_add_" && op.part.name != "aten::index_put_") {
      EXPECT_DOUBLE_EQ(op.part.delta_ms, 0) << op.part.name;
    }
  }
  // AddmmBackward0's 30 ms are its aten::mm's, counted once: the ops hold -23 of the -25 ms.
  EXPECT_NEAR(diff.ops_not_attributed_ms, -2, 1e-9);
  EXPECT_FALSE(HasNoteWith(diff, "self_gpu_ms"));
}

TEST(DeviceTimeDiff, AReportWithoutTheOpsSelfDeviceTimeFallsBackToHostSelfTime) {
  RunReport after = After();
  for (OpTime& op : after.ops) op.self_gpu_ms.reset();  // an advisor before the field
  const ReportDiff diff = DiffReports(Before(), after);
  EXPECT_EQ(diff.modules_time, DiffTime::kProfiledDevice);
  EXPECT_EQ(diff.ops_time, DiffTime::kProfiledHost);
  EXPECT_TRUE(HasNoteWith(diff, "the after's report has no ops[].self_gpu_ms")) << diff.notes[0];
  std::map<std::string, double> ops;
  for (const OpDelta& op : diff.ops) ops[op.part.name] = op.part.delta_ms;
  // Host self time, in the step's terms: 4 ms of a 110 ms window beside a 100 ms step, then 1 ms
  // of 85 beside 75.
  EXPECT_DOUBLE_EQ(ops.at("aten::copy_"), 1 * 75.0 / 85 - 4 * 100.0 / 110);
}

TEST(DeviceTimeDiff, ARunRankedByHostTimeComparesHostTimes) {
  RunReport after = After();
  after.levels_ranked_by = "host";  // a host-bound step: its levels recorded no kernels
  const ReportDiff diff = DiffReports(Before(), after);
  EXPECT_EQ(diff.modules_time, DiffTime::kProfiledHost);
  EXPECT_EQ(diff.ops_time, DiffTime::kProfiledHost);
  EXPECT_FALSE(diff.device_not_attributed_ms);
  // Host times in the step's terms: each profiled window ran 10 ms longer than its step (110
  // beside 100, 85 beside 75).
  const double before_scale = 100.0 / 110;
  const double after_scale = 75.0 / 85;
  EXPECT_DOUBLE_EQ(DeltaByModule(diff).at("blocks.0"), 11 * after_scale - 6 * before_scale);
  // The host split is of the profiled forward and backward: 100 ms, then 75.
  double modules = 0;
  for (const ModuleDelta& module : diff.modules) modules += module.part.delta_ms;
  EXPECT_NEAR(modules + diff.modules_not_attributed_ms, 75 * after_scale - 100 * before_scale,
              1e-9);
  // The table explains the step's change but for what the forward and backward's share of the
  // profiled step leaves: the optimizer's.
  const double table = 75 * after_scale - 100 * before_scale;
  EXPECT_NEAR(ModulesExplainedShare(diff), 1 - std::abs(-25 - table) / 25, 1e-9);
}

StepPhaseTimes Phases(double data, double forward, double loss, double backward, double optimizer) {
  StepPhaseTimes phases;
  phases.data_ms = data;
  phases.forward_ms = forward;
  phases.loss_ms = loss;
  phases.backward_ms = backward;
  phases.optimizer_ms = optimizer;
  return phases;
}

TEST(DeviceTimeDiff, ThePhasesAreTheUnprofiledStepsWhereBothReportsHaveThem) {
  RunReport before = Before();
  RunReport after = After();
  before.step.timed_phases = Phases(5, 30, 1, 60, 4);  // 100 ms, the step's mean
  after.step.timed_phases = Phases(5, 30, 1, 35, 4);   // 75 ms
  const ReportDiff diff = DiffReports(before, after);
  EXPECT_EQ(diff.phases_time, DiffTime::kUnprofiledSteps);
  EXPECT_NEAR(diff.not_attributed_ms, 0, 1e-9);
  EXPECT_EQ(diff.phases[3].name, "backward");
  EXPECT_DOUBLE_EQ(diff.phases[3].delta_ms, -25);
  EXPECT_FALSE(HasNoteWith(diff, "timed_phases_ms"));

  before.step.timed_phases.reset();
  const ReportDiff profiled = DiffReports(before, after);
  EXPECT_EQ(profiled.phases_time, DiffTime::kProfiledHost);
  // The profiled windows' backward: 70 and 45 ms.
  EXPECT_DOUBLE_EQ(profiled.phases[3].delta_ms, -25);
  EXPECT_TRUE(HasNoteWith(profiled, "the before's report has no step.timed_phases_ms"));
}

}  // namespace
}  // namespace advisor
