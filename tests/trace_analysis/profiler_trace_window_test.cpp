#include "engine/trace_analysis/profiler_trace_window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/trace_analysis/trace_report.h"
#include "tests/report/scratch_dir.h"
#include "tests/trace_analysis/kineto_trace_builder.h"

namespace advisor {
namespace {

using testing::KinetoTraceBuilder;
constexpr int kMain = KinetoTraceBuilder::kMainThread;
constexpr int kAutograd = KinetoTraceBuilder::kAutogradThread;

// Two 10 ms steps on a GPU, as torch 2.x writes them with with_stack and profile_memory: a 1 ms
// wait for the batch, Net_0.Linear_0 launching a 2 ms GEMM, Net_0.Linear_1 calling .item() (a
// copy to the host and a 1.1 ms wait), backward on the autograd thread, and the optimizer.
KinetoTraceBuilder TwoGpuSteps(const std::string& gemm_kernel = "gemm_kernel") {
  KinetoTraceBuilder b;
  b.Gpu("NVIDIA H100 80GB HBM3", 85899345920);
  for (int i = 0; i < 2; ++i) {
    const double t = 1000 + i * 10000;
    const int seq = 10 + 100 * i;
    b.Annotation("ProfilerStep#" + std::to_string(i), t, 10000)
        .Annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t + 10, 990)
        .PythonModule("Net_0", t + 1000, 3000)
        .PythonModule("Linear_0", t + 1100, 1000)
        .Op("aten::linear", t + 1150, 900, kMain, seq, 0)
        .Op("aten::addmm", t + 1200, 800, kMain, seq, 0)
        .Runtime("cudaLaunchKernel", t + 1300, 10, 1000 + i)
        .Kernel(gemm_kernel, t + 1400, 2000, 1000 + i)
        .Memory(t + 1250, 1 << 20, 100 << 20, 200 << 20)
        .PythonModule("Linear_1", t + 2200, 1500)
        .Op("aten::item", t + 2300, 1200)
        .Op("aten::_local_scalar_dense", t + 2310, 1150)
        .Runtime("cudaMemcpyAsync", t + 2320, 20, 2000 + i)
        .Memcpy("Memcpy DtoH (Device -> Pageable)", t + 3400, 5, 2000 + i, 4)
        .Runtime("cudaStreamSynchronize", t + 2350, 1100, 3000 + i)
        .Op("aten::cross_entropy_loss", t + 4100, 300)
        .Op("autograd::engine::evaluate_function: AddmmBackward0", t + 5000, 2000, kAutograd, seq,
            1)
        .Op("AddmmBackward0", t + 5010, 1980, kAutograd, seq, 1)
        .Op("aten::mm", t + 5100, 1500, kAutograd)
        .Flow(seq, t + 1200, t + 5010)
        .Annotation("Optimizer.step#SGD.step", t + 8000, 1500)
        .Op("aten::add_", t + 8100, 100);
  }
  return b;
}

const ModuleStats* FindModule(const RunReport& report, const std::string& path) {
  for (const ModuleStats& module : report.modules) {
    if (module.path == path) return &module;
  }
  return nullptr;
}

const OpTime* FindOp(const RunReport& report, const std::string& name) {
  for (const OpTime& op : report.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

TEST(TraceReport, StepsArePhasedByTheProfilersStepTheDataLoaderAutogradAndTheOptimizer) {
  testing::ScratchDir dir;
  const TraceStore store = TwoGpuSteps().Write(dir / "trace.json");
  const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
  const RunReport report = ReportOfTrace(store, trace);
  EXPECT_EQ(report.run.mode, Door::kTrace);
  EXPECT_EQ(report.run.device, "cuda");
  EXPECT_EQ(report.run.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(report.run.window_steps, 2);
  EXPECT_FALSE(report.run.deterministic.has_value()) << "a trace does not say";
  EXPECT_NEAR(report.step.median_ms, 10.0, 1e-9);
  EXPECT_EQ(report.step.timing, StepTiming::kProfilerTrace) << "its steps were all profiled";
  ASSERT_TRUE(report.data.has_value());
  EXPECT_NEAR(report.data->wait_ms, 1.0, 1e-9);
  EXPECT_EQ(report.data->workers, 0);
  EXPECT_FALSE(report.data->pin_memory.has_value());
  EXPECT_NEAR(report.step.forward_ms, 4.01, 1e-9) << "to the first autograd node";
  EXPECT_NEAR(report.step.backward_ms, 2.99, 1e-9) << "to Optimizer.step";
  EXPECT_NEAR(report.step.optimizer_ms, 2.0, 1e-9);
}

TEST(TraceReport, KernelsFindTheirOpsThroughTheLaunchingCallNotTheRecordsExternalId) {
  testing::ScratchDir dir;
  const TraceStore store = TwoGpuSteps().Write(dir / "trace.json");
  const RunReport report = ReportOfTrace(store, BuildProfilerTraceWindow(store));
  const OpTime* addmm = FindOp(report, "aten::addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->phase, "forward");
  EXPECT_EQ(addmm->calls, 1);
  EXPECT_NEAR(addmm->ms, 0.8, 1e-9);
  EXPECT_NEAR(addmm->gpu_ms, 2.0, 1e-9);
  EXPECT_NEAR(FindOp(report, "aten::linear")->gpu_ms, 2.0, 1e-9) << "inclusive";
  EXPECT_NEAR(FindOp(report, "aten::linear")->self_ms, 0.1, 1e-9);
  EXPECT_EQ(FindOp(report, "autograd::engine::evaluate_function: AddmmBackward0"), nullptr)
      << "the engine's wrapper is left out, as the op probe leaves it out";
  ASSERT_TRUE(report.gpu.has_value());
  EXPECT_EQ(report.gpu->kernels_per_step, 1.0);
  EXPECT_NEAR(report.gpu->kernel_ms, 2.0, 1e-9);
  ASSERT_EQ(report.syncs.size(), 1u);
  EXPECT_EQ(report.syncs[0].kind, "cudaStreamSynchronize");
  EXPECT_EQ(report.syncs[0].op, "aten::item");
  EXPECT_EQ(report.syncs[0].path, "Net_0.Linear_1");
  EXPECT_EQ(report.syncs[0].phase, "forward");
  EXPECT_NEAR(report.syncs[0].wait_ms, 1.1, 1e-9);
}

// A trace's ops are numbered from 1 in order, and its GPU records name them by that number: the
// window spells the numbers out beside the ops only where there are GPU records to link, so that a
// CPU trace's millions of ops do not carry 8 bytes each for nothing.
TEST(TraceReport, OnlyATraceWithGpuRecordsHoldsItsOpsCorrelationIds) {
  testing::ScratchDir dir;
  const TraceStore gpu_store = TwoGpuSteps().Write(dir / "gpu.json");
  const ProfilerTraceWindow gpu_trace = BuildProfilerTraceWindow(gpu_store);
  const Timeline& gpu = gpu_trace.window.timeline;
  ASSERT_FALSE(gpu.ops.empty());
  ASSERT_EQ(gpu.op_correlation_ids.size(), gpu.ops.size());
  for (std::size_t i = 0; i < gpu.ops.size(); ++i) EXPECT_EQ(gpu.CorrelationOf(i), i + 1);

  KinetoTraceBuilder cpu;
  cpu.Op("aten::mm", 10, 5).Op("aten::add", 20, 5);
  const TraceStore cpu_store = cpu.Write(dir / "cpu.json");
  const ProfilerTraceWindow cpu_trace = BuildProfilerTraceWindow(cpu_store);
  const Timeline& host_only = cpu_trace.window.timeline;
  EXPECT_EQ(host_only.ops.size(), 2u);
  EXPECT_TRUE(host_only.op_correlation_ids.empty());
  EXPECT_EQ(host_only.CorrelationOf(0), 0u);
}

// Two steps whose CUDA calls reuse one correlation id, as advisor's trace.json did in each window
// until 7d3ddfb (its CUPTI records numbered from 1): each kernel is the op's whose call came last
// before it.
TEST(TraceReport, ARecurringCorrelationIdLinksEachRecordToTheCallJustBeforeIt) {
  KinetoTraceBuilder b;
  b.Gpu("NVIDIA H100 80GB HBM3", 85899345920)
      .Annotation("ProfilerStep#0", 1000, 10000)
      .Op("aten::addmm", 2000, 100)
      .Runtime("cudaLaunchKernel", 2010, 10, 7)
      .Kernel("gemm_kernel", 2100, 3000, 7)
      .Annotation("ProfilerStep#1", 11000, 10000)
      .Op("aten::mm", 12000, 100)
      .Runtime("cudaLaunchKernel", 12010, 10, 7)
      .Kernel("gemm_kernel", 12100, 1000, 7);
  testing::ScratchDir dir;
  const TraceStore store = b.Write(dir / "trace.json");
  const RunReport report = ReportOfTrace(store, BuildProfilerTraceWindow(store));
  const OpTime* addmm = FindOp(report, "aten::addmm");
  const OpTime* mm = FindOp(report, "aten::mm");
  ASSERT_NE(addmm, nullptr);
  ASSERT_NE(mm, nullptr);
  ASSERT_GT(mm->gpu_ms, 0) << "the second step's kernel is not the first step's op's";
  EXPECT_NEAR(addmm->gpu_ms / mm->gpu_ms, 3.0, 1e-9);
}

// One 10 ms step whose host runs ahead of the device: the forward's 6 ms GEMM and the backward's
// 2 ms one run while the host is already in the optimizer, which waits for them. The report's
// phases are the device's; the ops keep the host's phases they ran in.
TEST(TraceReport, OnAGpuThePhasesAreTheDevicesNotWhereTheHostWaited) {
  KinetoTraceBuilder b;
  b.Gpu("NVIDIA H100 80GB HBM3", 85899345920)
      .Annotation("ProfilerStep#0", 1000, 10000)
      .Op("aten::addmm", 1100, 100, kMain, 5, 0)
      .Runtime("cudaLaunchKernel", 1110, 10, 1)
      .Kernel("gemm_kernel", 1200, 6000, 1)
      .Op("autograd::engine::evaluate_function: AddmmBackward0", 2000, 500, kAutograd, 5, 1)
      .Op("AddmmBackward0", 2010, 480, kAutograd, 5, 1)
      .Op("aten::mm", 2100, 100, kAutograd)
      .Runtime("cudaLaunchKernel", 2110, 10, 2)
      .Kernel("gemm_kernel", 7200, 2000, 2)
      .Flow(5, 1100, 2010)
      .Annotation("Optimizer.step#SGD.step", 3000, 7500)
      .Op("aten::add_", 3100, 50)
      .Runtime("cudaLaunchKernel", 3110, 10, 3)
      .Kernel("add_kernel", 9200, 100, 3)
      .Runtime("cudaStreamSynchronize", 3200, 6100, 4);
  testing::ScratchDir dir;
  const TraceStore store = b.Write(dir / "trace.json");
  const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
  const RunReport report = ReportOfTrace(store, trace);
  EXPECT_NEAR(report.step.forward_ms, 6.2, 1e-9) << "to the end of the forward's GEMM";
  EXPECT_NEAR(report.step.backward_ms, 2.0, 1e-9) << "from there to the backward's GEMM's end";
  EXPECT_NEAR(report.step.optimizer_ms, 1.8, 1e-9) << "its kernel, and the host after it";
  EXPECT_NEAR(report.step.median_ms, 10.0, 1e-9);
  ASSERT_EQ(trace.window.timeline.steps.size(), 1u);
  EXPECT_EQ(trace.window.timeline.steps[0].TimeIn(Phase::kOptimizer), 8'000'000)
      << "the host's optimizer holds its wait";
  EXPECT_EQ(FindOp(report, "aten::add_")->phase, "optimizer");
}

// A step whose optimizer ends in a device synchronisation: the script probe's, inside its own
// advisor::synchronize range (as advisor's trace.json and a torch.profiler run under advisor
// record it), or the same call made by the user's optimizer itself.
RunReport StepEndingInASync(bool in_advisors_range, const std::string& file) {
  KinetoTraceBuilder b;
  b.Gpu("NVIDIA H200", 150000000000)
      .Annotation("ProfilerStep#0", 1000, 10000)
      .Op("aten::addmm", 1100, 100)
      .Runtime("cudaLaunchKernel", 1110, 10, 1)
      .Kernel("gemm_kernel", 1200, 6000, 1)
      .Annotation("Optimizer.step#SGD.step", 3000, 7500)
      .Op("aten::add_", 3100, 50)
      .Runtime("cudaLaunchKernel", 3110, 10, 2)
      .Kernel("add_kernel", 7300, 100, 2);
  if (in_advisors_range) b.Annotation("advisor::synchronize", 3190, 4300);
  b.Runtime("cudaDeviceSynchronize", 3200, 4280, 3);
  testing::ScratchDir dir;
  const TraceStore store = b.Write(dir / file);
  return ReportOfTrace(store, BuildProfilerTraceWindow(store));
}

TEST(TraceReport, TheProbesOwnSyncInsideTheOptimizerStepIsNoSyncSite) {
  const RunReport users = StepEndingInASync(false, "users.json");
  ASSERT_EQ(users.syncs.size(), 1u) << "the optimizer's own wait is a site";
  EXPECT_EQ(users.syncs[0].kind, "cudaDeviceSynchronize");
  EXPECT_EQ(users.syncs[0].op, "Optimizer.step#SGD.step");
  EXPECT_EQ(users.syncs[0].phase, "optimizer");
  EXPECT_NEAR(users.syncs[0].wait_ms, 4.28, 1e-9);

  const RunReport advisors = StepEndingInASync(true, "advisors.json");
  EXPECT_TRUE(advisors.syncs.empty()) << "advisor's wait is measurement, not the user's code";
  EXPECT_EQ(FindModule(advisors, "advisor::synchronize"), nullptr) << "no module either";
  EXPECT_EQ(FindOp(advisors, "advisor::synchronize"), nullptr) << "nor an op";
  EXPECT_NE(FindOp(advisors, "Optimizer.step#SGD.step"), nullptr);
  EXPECT_NEAR(advisors.step.median_ms, users.step.median_ms, 1e-9) << "the step is the same";
}

bool SaysThat(const RunReport& report, const std::string& part) {
  return std::any_of(report.data_quality.begin(), report.data_quality.end(),
                     [&](const std::string& line) { return line.find(part) != std::string::npos; });
}

// A trace recorded without prof.step() is cut where the optimizer's steps end: one that began
// in a step's backward leaves that part out, two optimizers stepping back to back end one step,
// and what follows the last optimizer step is in no step.
TEST(TraceReport, WithoutProfilerStepsTheStepsEndWithTheOptimizersSteps) {
  KinetoTraceBuilder b;
  b.Op("AddmmBackward0", 100, 100)
      .Annotation("Optimizer.step#SGD.step", 300, 100)
      .Op("aten::addmm", 500, 100)
      .Op("AddmmBackward0", 700, 100)
      .Annotation("Optimizer.step#Adam.step", 900, 50)
      .Annotation("Optimizer.step#SGD.step", 960, 40)
      .Op("aten::addmm", 1100, 100)
      .Op("AddmmBackward0", 1300, 100)
      .Annotation("Optimizer.step#SGD.step", 1500, 100)
      .Op("aten::addmm", 1700, 100);
  testing::ScratchDir dir;
  const TraceStore store = b.Write(dir / "trace.json");
  const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
  const RunReport report = ReportOfTrace(store, trace);
  EXPECT_EQ(trace.step_cut, StepCut::kOptimizerSteps);
  EXPECT_TRUE(trace.partial_first_step_left_out);
  const std::vector<StepSpan>& steps = trace.window.timeline.steps;
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].start_ns, 400'000) << "where the partial step's optimizer ended";
  EXPECT_EQ(steps[0].end_ns, 1'000'000) << "where the second optimizer's step ended";
  EXPECT_EQ(steps[0].TimeIn(Phase::kForward), 300'000);
  EXPECT_EQ(steps[0].TimeIn(Phase::kBackward), 200'000);
  EXPECT_EQ(steps[0].TimeIn(Phase::kOptimizer), 100'000) << "both optimizers' steps";
  EXPECT_EQ(steps[1].start_ns, 1'000'000);
  EXPECT_EQ(steps[1].end_ns, 1'600'000);
  EXPECT_EQ(steps[1].TimeIn(Phase::kOptimizer), 100'000);
  EXPECT_EQ(report.run.window_steps, 2);
  EXPECT_TRUE(SaysThat(report, "steps cut at the end of each optimizer step"));
  EXPECT_TRUE(SaysThat(report, "2 steps"));
  EXPECT_TRUE(SaysThat(report, "the trace begins inside a step"));
}

// torch 2 records aten::std inside an aten::std: the trace's op table counts it once a call, at
// the outer one's time, as the bisection's windows do (engine/analysis/attribution.cpp).
TEST(TraceReport, AnOpNestedInItsOwnNameIsOneCallOfTheOpTable) {
  KinetoTraceBuilder b;
  for (int i = 0; i < 2; ++i) {
    const double t = 1000 + i * 1000;
    b.Annotation("ProfilerStep#" + std::to_string(i), t, 1000)
        .Op("aten::std", t + 100, 60)
        .Op("aten::std", t + 105, 50)
        .Op("aten::sub", t + 110, 10)
        .Op("AddmmBackward0", t + 300, 100)
        .Annotation("Optimizer.step#SGD.step", t + 600, 100);
  }
  testing::ScratchDir dir;
  const TraceStore store = b.Write(dir / "trace.json");
  const RunReport report = ReportOfTrace(store, BuildProfilerTraceWindow(store));
  const OpTime* std_op = FindOp(report, "aten::std");
  ASSERT_NE(std_op, nullptr);
  EXPECT_EQ(std_op->calls, 1);
  EXPECT_NEAR(std_op->ms, 0.06, 1e-9) << "the outer call's time, not 0.06 + 0.05";
  EXPECT_NEAR(std_op->self_ms, 0.05, 1e-9) << "both levels' own time: 0.01 + 0.04";
}

// The autograd thread's node is written before the main thread's, which starts first: forward
// ends at the first node to start and backward at the last to end, whatever the file's order.
TEST(TraceReport, BackwardIsCutAtItsNodesInTimeNotInFileOrder) {
  KinetoTraceBuilder b;
  b.Annotation("ProfilerStep#1", 0, 1000)
      .Op("aten::addmm", 100, 100)
      .Op("AddmmBackward0", 500, 100, kAutograd)
      .Op("MulBackward0", 300, 50)
      .Op("aten::add_", 700, 100);
  testing::ScratchDir dir;
  const TraceStore store = b.Write(dir / "trace.json");
  const ProfilerTraceWindow trace = BuildProfilerTraceWindow(store);
  const std::vector<StepSpan>& steps = trace.window.timeline.steps;
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].TimeIn(Phase::kForward), 300'000) << "to MulBackward0's start";
  EXPECT_EQ(steps[0].TimeIn(Phase::kBackward), 300'000) << "to AddmmBackward0's end";
  EXPECT_EQ(steps[0].TimeIn(Phase::kOptimizer), 400'000);
}

TEST(TraceReport, WithoutInputTypesTheDtypeAndTf32ComeFromTheGemmKernelsNames) {
  testing::ScratchDir dir;
  const TraceStore simt = TwoGpuSteps(
                              "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_"
                              "warpsize2x2x1_ffma_aligna4_"
                              "alignc4_execute_kernel__5x_cublas")
                              .Write(dir / "simt.json");
  const RunReport on_cuda_cores = ReportOfTrace(simt, BuildProfilerTraceWindow(simt));
  EXPECT_EQ(on_cuda_cores.run.dtype, "float32");
  EXPECT_FALSE(on_cuda_cores.run.allow_tf32.has_value())
      << "float32 kernels on CUDA cores may be cuBLAS's pick with TF32 allowed";
  bool said = false;
  for (const std::string& line : on_cuda_cores.data_quality) {
    said = said || line.find("read from its GEMM kernels' names") != std::string::npos;
  }
  EXPECT_TRUE(said) << "the report says where the dtype came from";

  const TraceStore tensor_cores =
      TwoGpuSteps(
          "sm80_xmma_gemm_tf32f32_tf32f32_f32_tn_n_tilesize128x128x16_stage4_execute_kernel")
          .Write(dir / "tf32.json");
  const RunReport in_tf32 = ReportOfTrace(tensor_cores, BuildProfilerTraceWindow(tensor_cores));
  EXPECT_EQ(in_tf32.run.dtype, "float32");
  EXPECT_EQ(in_tf32.run.allow_tf32, std::optional<bool>(true));

  const TraceStore unnamed = TwoGpuSteps().Write(dir / "unnamed.json");
  EXPECT_EQ(ReportOfTrace(unnamed, BuildProfilerTraceWindow(unnamed)).run.dtype, "")
      << "a kernel name that says no precision gives none";
}

TEST(TraceReport, ModulesComeFromNestedModuleEventsAndBackwardFollowsSequenceNumbers) {
  testing::ScratchDir dir;
  const TraceStore store = TwoGpuSteps().Write(dir / "trace.json");
  const RunReport report = ReportOfTrace(store, BuildProfilerTraceWindow(store));
  const ModuleStats* linear = FindModule(report, "Net_0.Linear_0");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->type, "Linear");
  EXPECT_TRUE(linear->measured);
  EXPECT_FALSE(linear->parameters.has_value());
  EXPECT_NEAR(linear->forward_ms, 0.9, 1e-9);
  EXPECT_NEAR(linear->backward_ms, 1.98, 1e-9) << "AddmmBackward0, linked by the flow's thread";
  EXPECT_NEAR(linear->gpu_ms, 2.0, 1e-9);
  EXPECT_EQ(linear->op_types, (std::vector<std::string>{"aten::linear"}));
  const ModuleStats* net = FindModule(report, "Net_0");
  ASSERT_NE(net, nullptr);
  EXPECT_NEAR(net->forward_ms, 0.9 + 1.2, 1e-9);
  EXPECT_EQ(net->type, "Net");
}

TEST(TraceReport, MemoryRecordsGivePeaksAndAllocationsPerStep) {
  testing::ScratchDir dir;
  const TraceStore store = TwoGpuSteps().Write(dir / "trace.json");
  const RunReport report = ReportOfTrace(store, BuildProfilerTraceWindow(store));
  ASSERT_TRUE(report.memory.has_value());
  EXPECT_NEAR(report.memory->peak_allocated_mb, 100.0, 1e-9);
  EXPECT_NEAR(report.memory->peak_reserved_mb, 200.0, 1e-9);
  EXPECT_NEAR(report.memory->device_total_mb, 81920.0, 1e-9);
  EXPECT_FALSE(report.memory->alloc_retries.has_value());
  EXPECT_EQ(report.memory->tensor_allocs_per_step, 1.0);
  EXPECT_NEAR(*report.memory->tensor_alloc_mb_per_step, 1.0, 1e-9);
}

// advisor analyze lets each chunk of events go as the records are read from it, before the window
// is built: the window must need nothing more of them (the memory records among them).
TEST(TraceReport, TheWindowNeedsNoEventOnceItsRecordsAreTaken) {
  testing::ScratchDir dir;
  const TraceStore kept = TwoGpuSteps().Write(dir / "trace.json");
  const RunReport whole = ReportOfTrace(kept, BuildProfilerTraceWindow(kept));
  TraceStore taken = TwoGpuSteps().Write(dir / "trace.json");
  TraceRecords records = TakeTraceRecords(taken);
  EXPECT_TRUE(taken.chunks.empty());
  const RunReport report = ReportOfTrace(
      taken, BuildProfilerTraceWindow(taken, records, OpPlacementsKept::kWhereGpu, 1));

  EXPECT_EQ(report.run.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(report.run.window_steps, 2);
  EXPECT_EQ(report.step.median_ms, whole.step.median_ms);
  ASSERT_TRUE(report.memory.has_value());
  EXPECT_EQ(report.memory->peak_allocated_mb, whole.memory->peak_allocated_mb);
  EXPECT_EQ(report.memory->tensor_allocs_per_step, whole.memory->tensor_allocs_per_step);
  ASSERT_EQ(report.modules.size(), whole.modules.size());
  for (std::size_t i = 0; i < report.modules.size(); ++i) {
    EXPECT_EQ(report.modules[i].path, whole.modules[i].path);
    EXPECT_EQ(report.modules[i].gpu_ms, whole.modules[i].gpu_ms) << report.modules[i].path;
  }
  ASSERT_NE(FindOp(report, "aten::addmm"), nullptr);
  EXPECT_NEAR(FindOp(report, "aten::addmm")->gpu_ms, 2.0, 1e-9);
  EXPECT_EQ(report.data_quality, whole.data_quality);
}

TEST(TraceReport, SaysWhichSectionsATraceCannotFill) {
  testing::ScratchDir dir;
  const TraceStore gpu_store = TwoGpuSteps().Write(dir / "gpu.json");
  std::map<std::string, std::string> absent;
  for (const AbsentSection& section :
       ReportOfTrace(gpu_store, BuildProfilerTraceWindow(gpu_store)).absent) {
    absent[section.section] = section.reason;
  }
  EXPECT_EQ(absent.size(), 4u);
  for (const char* section : {"bisection", "hotspot", "cross_check", "fixes"}) {
    EXPECT_EQ(absent.count(section), 1u) << section;
  }

  KinetoTraceBuilder cpu;
  cpu.Op("aten::mm", 10, 5).Op("aten::add", 20, 5);  // no steps, modules, GPU or memory
  const TraceStore cpu_store = cpu.Write(dir / "cpu.json");
  const RunReport report = ReportOfTrace(cpu_store, BuildProfilerTraceWindow(cpu_store));
  absent.clear();
  for (const AbsentSection& section : report.absent) absent[section.section] = section.reason;
  for (const char* section : {"modules", "gpu", "memory", "data"}) {
    EXPECT_EQ(absent.count(section), 1u) << section;
  }
  EXPECT_FALSE(report.gpu.has_value());
  EXPECT_EQ(report.run.window_steps, 1)
      << "without ProfilerStep#N or an optimizer step the trace is one step";
  EXPECT_NEAR(report.step.median_ms, 0.015, 1e-9);
  EXPECT_NE(std::find_if(report.data_quality.begin(), report.data_quality.end(),
                         [](const std::string& line) {
                           return line.find(
                                      "no ProfilerStep#N ranges (prof.step() was not "
                                      "called) and no optimizer step") != std::string::npos;
                         }),
            report.data_quality.end());
}

}  // namespace
}  // namespace advisor
