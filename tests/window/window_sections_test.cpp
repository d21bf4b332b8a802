#include "engine/window/window_sections.h"

#include <gtest/gtest.h>

#include <tuple>
#include <utility>

#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor {
namespace {

using testing::Api;
using testing::Kernel;
using testing::Memcpy;
using testing::AddOp;
using testing::Op;

constexpr TimeNs kMs = 1000000;

// Two 10 ms steps on a GPU: an aten::item that copies to the host and waits, and a matmul whose
// aten::mm launches a 4 ms kernel.
Timeline GpuWindow() {
  Timeline timeline;
  for (int step = 0; step < 2; ++step) {
    const TimeNs t = step * 10 * kMs;
    timeline.steps.push_back(StepOfPhases(step, t, t, t + 5 * kMs, t + 8 * kMs, t + 10 * kMs));
    const std::uint64_t id = 10 * (step + 1);
    AddOp(timeline, Op("aten::matmul", t + 1 * kMs, t + 3 * kMs, id));
    AddOp(timeline, Op("aten::mm", t + 1 * kMs + 100, t + 2 * kMs, id + 1, 1));
    timeline.kernels.push_back(Kernel(t + 1 * kMs + 200, t + 5 * kMs, id + 1));
    AddOp(timeline, Op("aten::item", t + 3 * kMs, t + 4 * kMs, id + 2));
    AddOp(timeline, Op("aten::_local_scalar_dense", t + 3 * kMs + 10, t + 4 * kMs, id + 3, 1));
    timeline.memcpys.push_back(Memcpy(MemcpyKind::kDeviceToHost, t + 3 * kMs + 500,
                                      t + 3 * kMs + 600, id + 3));
    timeline.api_calls.push_back(
        Api("cudaStreamSynchronize", t + 3 * kMs + 20, t + 4 * kMs - 10, id + 3));
  }
  timeline.probes = {{"ops", true, "ATen RecordFunction observer", 0},
                     {"cupti", true, "2 records late", 3}};
  return timeline;
}

TEST(WindowSections, FillOpsGpuSyncsAndProbeNotesFromOneWindow) {
  RunReport report;
  report.memory = MemoryStats{};
  FillWindowSections(MeasureWindow(GpuWindow()), std::nullopt, report);

  ASSERT_FALSE(report.ops.empty());
  const OpTime* matmul = nullptr;
  for (const OpTime& op : report.ops) {
    if (op.name == "aten::matmul") matmul = &op;
  }
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->phase, "forward");
  EXPECT_EQ(matmul->calls, 1);
  EXPECT_NEAR(matmul->ms, 2.0, 1e-9);
  EXPECT_NEAR(matmul->self_ms, 2.0 - (1.0 - 0.0001), 1e-9);
  EXPECT_NEAR(matmul->gpu_ms, 4.0 - 0.0002, 1e-9) << "its aten::mm's kernel";
  ASSERT_TRUE(matmul->self_gpu_ms);
  EXPECT_NEAR(*matmul->self_gpu_ms, 0.0, 1e-9) << "the kernel is its aten::mm's own";

  ASSERT_TRUE(report.gpu.has_value());
  EXPECT_EQ(report.gpu->kernels_per_step, 1.0);
  ASSERT_EQ(report.syncs.size(), 1u);
  EXPECT_EQ(report.syncs[0].op, "aten::item");
  EXPECT_EQ(report.syncs[0].kind, "cudaStreamSynchronize");
  EXPECT_TRUE(report.copies.empty()) << "a device-to-host copy is no upload";
  EXPECT_EQ(report.memory->num_device_allocs, 0);
  EXPECT_EQ(report.data_quality,
            (std::vector<std::string>{"cupti: 2 records late", "cupti probe dropped 3 records"}));
}

TEST(WindowSections, NoGpuProbeMeansNoGpuSectionNotAnIdleGpu) {
  Timeline timeline = GpuWindow();
  timeline.probes = {{"ops", true, "", 0}, {"cupti", false, "no CUDA device", 0}};
  RunReport report;
  FillWindowSections(MeasureWindow(timeline), std::nullopt, report);
  EXPECT_FALSE(report.gpu.has_value());
  EXPECT_FALSE(report.memory.has_value());
  EXPECT_EQ(report.data_quality,
            (std::vector<std::string>{"cupti probe inactive: no CUDA device"}));
}

// The unprofiled steps' phases, each phase's mean: a 10 ms step (data 1, forward 4, loss 1,
// backward 3, optimizer 1) and a 14 ms one (data 3, forward 4, loss 1, backward 5, optimizer 1).
std::vector<StepSpan> TimedSteps() {
  std::vector<StepSpan> steps;
  for (const auto& [start, data, backward] :
       {std::tuple<TimeNs, TimeNs, TimeNs>{0, 1, 3}, {20 * kMs, 3, 5}}) {
    StepSpan step;
    step.start_ns = start;
    TimeNs at = start;
    for (const auto& [phase, ms] : {std::pair<Phase, TimeNs>{Phase::kData, data},
                                    {Phase::kForward, 4},
                                    {Phase::kLoss, 1},
                                    {Phase::kBackward, backward},
                                    {Phase::kOptimizer, 1}}) {
      step.phases.push_back({phase, at, at + ms * kMs});
      at += ms * kMs;
    }
    step.end_ns = at;
    steps.push_back(step);
  }
  return steps;
}

TEST(WindowSections, TheTimedStepsPhasesAreTheirMeansAndAddUpToTheirMeanStep) {
  StepBreakdown step;
  SetStepTimes(StepMillis(TimedSteps()), step);
  SetTimedPhases(TimedSteps(), /*data_apart=*/true, step);
  ASSERT_TRUE(step.timed_phases);
  const StepPhaseTimes& phases = *step.timed_phases;
  EXPECT_EQ(phases.data_ms, 2.0);
  EXPECT_DOUBLE_EQ(phases.forward_ms, 4);
  EXPECT_EQ(phases.loss_ms, 1.0);
  EXPECT_DOUBLE_EQ(phases.backward_ms, 4);
  EXPECT_DOUBLE_EQ(phases.optimizer_ms, 1);
  EXPECT_NEAR(*phases.data_ms + phases.forward_ms + *phases.loss_ms + phases.backward_ms +
                  phases.optimizer_ms + phases.evaluation_ms + phases.rest_ms,
              step.mean_ms, 1e-9);
  // Without a data section to report, the wait is the rest's, as in the profiled phases.
  StepBreakdown no_data;
  SetTimedPhases(TimedSteps(), /*data_apart=*/false, no_data);
  EXPECT_FALSE(no_data.timed_phases->data_ms);
  EXPECT_DOUBLE_EQ(no_data.timed_phases->rest_ms, 2);
}

TEST(WindowSections, StepsTimedWithoutPhasesHaveNoTimedPhases) {
  std::vector<StepSpan> steps = TimedSteps();
  for (StepSpan& step : steps) step.phases.clear();
  StepBreakdown step;
  SetTimedPhases(steps, true, step);
  EXPECT_FALSE(step.timed_phases);
}

}  // namespace
}  // namespace advisor
