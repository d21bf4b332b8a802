// A GPU trace's window placed a segment at a time on several threads, as advisor analyze places
// one (MeasureWindowOnThreads), is the window placed whole on one thread (MeasureWindow): each
// op's placement, the modules' forward ops, the collectives and the report, field for field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/report/json_writer.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_reader.h"
#include "tests/report/scratch_dir.h"
#include "tests/trace_analysis/kineto_trace_builder.h"

namespace advisor {
namespace {

using testing::KinetoTraceBuilder;
constexpr int kMain = KinetoTraceBuilder::kMainThread;
constexpr int kAutograd = KinetoTraceBuilder::kAutogradThread;

const std::string kVitTrace =
    std::string(ADVISOR_TEST_TRACES_DIR) + "/torch-2.11-h200/vit_bisect_window2.json.gz";

// Twelve 10 ms GPU steps: two modules launching a GEMM each (the second's longer step by step),
// their backward nodes on the autograd thread, an all-reduce's NCCL kernel in the optimizer, and
// in the sixth step a copy that runs into the seventh, so that those two steps are one segment.
KinetoTraceBuilder TwelveGpuSteps() {
  KinetoTraceBuilder b;
  b.Gpu("NVIDIA H200", 150'000'000'000);
  for (int i = 0; i < 12; ++i) {
    const double t = 1000 + i * 10000;
    const int seq = 10 + 100 * i;
    const int correlation = 1000 + 10 * i;  // the step's launches', from here up
    b.Annotation("ProfilerStep#" + std::to_string(i), t, 10000)
        .PythonModule("Net_0", t + 100, 3000)
        .PythonModule("Linear_0", t + 200, 1000)
        .Op("aten::linear", t + 250, 900, kMain, seq, 0)
        .Op("aten::addmm", t + 300, 800, kMain, seq, 0)
        .Runtime("cudaLaunchKernel", t + 400, 10, correlation)
        .Kernel("gemm_kernel", t + 500, 2000, correlation)
        .PythonModule("Linear_1", t + 1300, 1500)
        .Op("aten::linear", t + 1350, 1400, kMain, seq + 1, 0)
        .Op("aten::addmm", t + 1400, 1300, kMain, seq + 1, 0)
        .Runtime("cudaLaunchKernel", t + 1500, 10, correlation + 1)
        .Kernel("gemm_kernel", t + 2600, 1000 + 10 * i, correlation + 1)
        .Op("autograd::engine::evaluate_function: AddmmBackward0", t + 4000, 2000, kAutograd,
            seq + 1, 1)
        .Op("AddmmBackward0", t + 4010, 1980, kAutograd, seq + 1, 1)
        .Op("aten::mm", t + 4100, 1500, kAutograd)
        .Runtime("cudaLaunchKernel", t + 4200, 10, correlation + 2, kAutograd)
        .Kernel("gemm_kernel", t + 4300, 1400, correlation + 2)
        .Flow(seq + 1, t + 1400, t + 4010)
        .Op("AddmmBackward0", t + 6100, 900, kAutograd, seq, 1)
        .Runtime("cudaLaunchKernel", t + 6200, 10, correlation + 3, kAutograd)
        .Kernel("gemm_kernel", t + 6300, 600, correlation + 3)
        .Flow(seq, t + 300, t + 6100)
        .Annotation("Optimizer.step#SGD.step", t + 8000, 1500)
        .Op("c10d::allreduce_", t + 8050, 200)
        .Runtime("cudaLaunchKernel", t + 8100, 10, correlation + 4)
        .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", t + 8200, 700,
                correlation + 4)
        .Op("aten::add_", t + 8400, 100);
    if (i == 5) {
      b.Op("aten::copy_", t + 9600, 800)
          .Runtime("cudaMemcpyAsync", t + 9700, 20, correlation + 5)
          .Memcpy("Memcpy HtoD (Pageable -> Device)", t + 9800, 50, correlation + 5, 1 << 20);
    }
  }
  return b;
}

// Each op's placement, its module spelt out.
std::vector<std::string> PlacementLines(const MeasuredWindow& window) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < window.placements.size(); ++i) {
    const OpPlacement& placement = window.placements[i];
    lines.push_back(std::to_string(placement.step) + " " + PhaseName(placement.phase) + " " +
                    window.placements.ModuleOf(i).str() + " " + std::to_string(placement.parent) +
                    " " + std::to_string(placement.top_level));
  }
  return lines;
}

void ExpectSameWindow(const TraceStore& store, const ProfilerTraceWindow& whole,
                      const ProfilerTraceWindow& on_threads) {
  ASSERT_EQ(whole.window.placements.size(), whole.window.timeline.ops.size());
  EXPECT_EQ(PlacementLines(on_threads.window), PlacementLines(whole.window));
  EXPECT_EQ(on_threads.forward_ops, whole.forward_ops);
  ASSERT_EQ(on_threads.collectives.size(), whole.collectives.size());
  for (std::size_t i = 0; i < whole.collectives.size(); ++i) {
    EXPECT_EQ(on_threads.collectives[i].name, whole.collectives[i].name) << i;
    EXPECT_EQ(on_threads.collectives[i].start_ns, whole.collectives[i].start_ns) << i;
    EXPECT_EQ(on_threads.collectives[i].step, whole.collectives[i].step) << i;
  }
  // report.json holds every figure the report gives, each double to its last bit.
  EXPECT_EQ(ReportToJsonText(ReportOfTrace(store, on_threads)),
            ReportToJsonText(ReportOfTrace(store, whole)));
}

// The whole window (the multi-rank analysis's) against advisor analyze's on 1, 2, 3 and 8
// threads, each built from records read afresh.
void ExpectSameOnEveryThreadCount(const TraceStore& store) {
  const ProfilerTraceWindow whole =
      BuildProfilerTraceWindow(store, ReadTraceRecords(store), OpPlacementsKept::kEvery, 1);
  for (const int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    ExpectSameWindow(store, whole,
                     BuildProfilerTraceWindow(store, ReadTraceRecords(store),
                                              OpPlacementsKept::kWhereGpu, threads));
  }
}

TEST(GpuWindowOnThreads, AMadeGpuTracesWindowIsTheWholeWindowOnAnyNumberOfThreads) {
  testing::ScratchDir dir;
  const TraceStore store = TwelveGpuSteps().Write(dir / "trace.json");
  ExpectSameOnEveryThreadCount(store);

  // What the window holds, so that the comparison is not of windows alike for want of content.
  const ProfilerTraceWindow trace =
      BuildProfilerTraceWindow(store, ReadTraceRecords(store), OpPlacementsKept::kWhereGpu, 3);
  const Timeline& timeline = trace.window.timeline;
  EXPECT_EQ(timeline.steps.size(), 12u);
  EXPECT_EQ(timeline.kernels.size(), 12u * 5);
  EXPECT_EQ(OpSegments(timeline).size(), 11u) << "a step a segment, the sixth and seventh one";
  ASSERT_EQ(trace.collectives.size(), 12u);
  EXPECT_TRUE(trace.collectives[0].on_device);
  const RunReport report = ReportOfTrace(store, trace);
  bool linear_1 = false;
  for (const ModuleStats& module : report.modules) {
    if (module.path != "Net_0.Linear_1") continue;
    linear_1 = true;
    // Its forward GEMM, 1.05-1.06 ms in the median steps, and its backward node's 1.4 ms GEMM.
    EXPECT_NEAR(module.gpu_ms, 1.055 + 1.4, 0.01);
  }
  EXPECT_TRUE(linear_1);
}

TEST(GpuWindowOnThreads, TheH200VitTracesWindowIsTheWholeWindowOnAnyNumberOfThreads) {
  const TraceStore store = ReadTrace(kVitTrace);
  ExpectSameOnEveryThreadCount(store);
  const ProfilerTraceWindow trace =
      BuildProfilerTraceWindow(store, ReadTraceRecords(store), OpPlacementsKept::kWhereGpu, 2);
  // advisor's own window cuts a script's loss apart, whose backward nodes need their forward ops
  // wherever these ran: it is placed whole, on one of the threads.
  EXPECT_EQ(OpSegments(trace.window.timeline).size(), 1u);
  EXPECT_GT(trace.window.timeline.kernels.size(), 1000u);
}

}  // namespace
}  // namespace advisor
