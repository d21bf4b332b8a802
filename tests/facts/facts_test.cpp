// BuildFacts: units, derived shares, and the rule that unmeasured facts are absent, never zero.
#include <gtest/gtest.h>

#include "engine/facts/facts.h"
#include "engine/facts/sample_reports.h"

namespace advisor {
namespace {

using nlohmann::json;

TEST(BuildFacts, RunFacts) {
  const json facts = BuildFacts(SampleReportAllMeasured(),
                                {"expandable_segments:True", {{"LD_PRELOAD", "libjemalloc.so.2"}}});
  const json& run = facts.at("run");
  EXPECT_EQ(run.at("device"), "cuda");
  EXPECT_EQ(run.at("device_name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run.at("torch_version"), "2.4.0");
  EXPECT_EQ(run.at("deterministic"), true);
  EXPECT_EQ(run.at("batch_size"), 32);
  EXPECT_EQ(run.at("dtype"), "float32");
  EXPECT_EQ(run.at("window_steps"), 10);
  EXPECT_EQ(run.at("allocator").at("expandable_segments"), true);
  EXPECT_EQ(run.at("host_allocator").at("env").at("LD_PRELOAD"), "libjemalloc.so.2");
  EXPECT_EQ(run.at("host_allocator").at("keeps_freed_memory"), true);
  EXPECT_DOUBLE_EQ(run.at("page_fault_us").get<double>(), 1.3);
}

TEST(BuildFacts, UnknownBatchSizeAndDtypeAreAbsent) {
  const json run = BuildFacts(SampleReportNothingMeasured()).at("run");
  EXPECT_FALSE(run.contains("batch_size"));
  EXPECT_FALSE(run.contains("dtype"));
  EXPECT_EQ(run.at("allocator").at("conf"), "");
  EXPECT_EQ(run.at("host_allocator").at("keeps_freed_memory"), false);
  EXPECT_FALSE(run.contains("page_fault_us")) << "not counted";
}

TEST(BuildFacts, WhatTorchCompileDidWithTheMeanCompilation) {
  const json compile = BuildFacts(SampleReportAllMeasured()).at("compile");
  EXPECT_EQ(compile.at("graphs"), 3);
  EXPECT_DOUBLE_EQ(compile.at("mean_compile_s").get<double>(), 6.5 / 4);
  EXPECT_EQ(compile.at("graph_breaks").at(0).at("line"), 27);
  EXPECT_EQ(compile.at("recompiles").at(0).at("guard"),
            "tensor 'x' size mismatch at index 0. expected 4, actual 6");
  EXPECT_EQ(compile.at("recompile_limit_hits").at(0).at("limit"), 8);
  EXPECT_EQ(compile.at("cuda_graphs").at("functions").at(0).at("later_steps"), 21);
  EXPECT_EQ(compile.at("cuda_graphs").at("skipped").at(0).at("reason"),
            "mutated inputs (1 instances)");

  RunReport nothing_compiled = SampleReportAllMeasured();
  nothing_compiled.compile->compilations = 0;
  EXPECT_FALSE(BuildFacts(nothing_compiled).at("compile").contains("mean_compile_s"))
      << "no compilation to take a mean of";
  EXPECT_FALSE(BuildFacts(SampleReportNothingMeasured()).contains("compile"));
}

TEST(BuildFacts, StepSharesAreFractionsOfTheMedianWithoutAProfiledStep) {
  const json step = BuildFacts(SampleReportAllMeasured()).at("step");
  EXPECT_DOUBLE_EQ(step.at("median_ms"), 20.0);
  EXPECT_DOUBLE_EQ(step.at("ms"), 20.0);
  EXPECT_DOUBLE_EQ(step.at("forward_share"), 6.0 / 20.0);
  EXPECT_DOUBLE_EQ(step.at("backward_share"), 11.0 / 20.0);
  EXPECT_DOUBLE_EQ(step.at("optimizer_share"), 3.0 / 20.0);
  EXPECT_DOUBLE_EQ(step.at("spread"), (24.0 - 19.0) / 20.0);
  EXPECT_FALSE(step.contains("graphed_median_ms"));
}

// A DataLoader-bound step: most steps take 20 ms, some wait far longer (the mean, 50 ms); the
// profiled window's mean step, 55 ms, is the step the modules, ops and phases were measured in.
TEST(BuildFacts, SharesAreOfTheProfiledStepTheTimesWereMeasuredIn) {
  RunReport report = SampleReportAllMeasured();
  report.step.mean_ms = 50.0;
  report.step.profiled_ms = 55.0;
  const json facts = BuildFacts(report);
  EXPECT_DOUBLE_EQ(facts.at("step").at("ms"), 55.0);
  EXPECT_DOUBLE_EQ(facts.at("step").at("forward_share"), 6.0 / 55.0);
  EXPECT_DOUBLE_EQ(facts.at("modules").at("blocks.0.attn").at("share"), 11.0 / 55.0);
  EXPECT_DOUBLE_EQ(facts.at("ops")[0].at("share"),
                   facts.at("ops")[0].at("ms").get<double>() / 55.0);
  EXPECT_DOUBLE_EQ(facts.at("data").at("wait_share"), 1.0 / 55.0);
  EXPECT_DOUBLE_EQ(facts.at("syncs")[0].at("share"),
                   facts.at("syncs")[0].at("wait_ms").get<double>() / 55.0);
  EXPECT_DOUBLE_EQ(facts.at("step").at("spread"), (24.0 - 19.0) / 20.0) << "of the median";
}

// A graphed workload: the shares stay of the eager step the windows saw; the graph's time is apart.
TEST(BuildFacts, AGraphedStepKeepsSharesOfTheEagerStep) {
  RunReport report = SampleReportAllMeasured();
  report.run.cuda_graphs = true;
  report.step.graphed_median_ms = 5.0;
  const json facts = BuildFacts(report);
  EXPECT_EQ(facts.at("run").at("cuda_graphs"), true);
  EXPECT_DOUBLE_EQ(facts.at("step").at("graphed_median_ms"), 5.0);
  EXPECT_DOUBLE_EQ(facts.at("step").at("optimizer_share"), 3.0 / 20.0);
}

TEST(BuildFacts, SharesAreAbsentWithoutAStepTime) {
  RunReport report = SampleReportAllMeasured();
  report.step = {};
  const json facts = BuildFacts(report);
  EXPECT_FALSE(facts.at("step").contains("forward_share"));
  EXPECT_FALSE(facts.at("ops")[0].contains("share"));
  EXPECT_FALSE(facts.at("gpu").contains("idle_ms"));
}

TEST(BuildFacts, HotspotWithItsOpsAndSource) {
  const json hotspot = BuildFacts(SampleReportAllMeasured()).at("hotspot");
  EXPECT_EQ(hotspot.at("path"), "blocks.0.attn");
  EXPECT_EQ(hotspot.at("op"), "GatherBackward0");
  EXPECT_EQ(hotspot.at("forward_op"), "aten::gather");
  EXPECT_DOUBLE_EQ(hotspot.at("share"), 0.3);
  EXPECT_EQ(hotspot.at("source").at("line"), 42);
  ASSERT_EQ(hotspot.at("ops").size(), 2u);
  EXPECT_EQ(hotspot.at("ops")[0].at("name"), "aten::softmax");
  EXPECT_EQ(hotspot.at("ops")[0].at("path"), "blocks.0.attn");
  EXPECT_DOUBLE_EQ(hotspot.at("ops")[0].at("share"), 1.5 / 20.0);
  EXPECT_DOUBLE_EQ(hotspot.at("view_op_us"), 1.5);
  const json kinds = hotspot.at("lines").at(0).at("op_kinds");
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds.at(0).at("name"), "aten::gather");
  EXPECT_DOUBLE_EQ(kinds.at(0).at("calls"), 2);
  EXPECT_DOUBLE_EQ(kinds.at(0).at("us"), 1500);
  EXPECT_DOUBLE_EQ(kinds.at(0).at("share"), 0.83);
  EXPECT_FALSE(BuildFacts(SampleReportNothingMeasured()).contains("hotspot"));
  RunReport unlabelled = SampleReportAllMeasured();
  unlabelled.hotspot->view_op_us.reset();
  EXPECT_FALSE(BuildFacts(unlabelled).at("hotspot").contains("view_op_us"));
}

TEST(BuildFacts, ModulesAreKeyedByPath) {
  const json modules = BuildFacts(SampleReportAllMeasured()).at("modules");
  const json& attention = modules.at("blocks.0.attn");
  EXPECT_EQ(attention.at("type"), "__torch__.Attention");
  EXPECT_DOUBLE_EQ(attention.at("forward_ms"), 4.0);
  EXPECT_DOUBLE_EQ(attention.at("backward_ms"), 7.0);
  EXPECT_DOUBLE_EQ(attention.at("ms"), 11.0);
  EXPECT_DOUBLE_EQ(attention.at("share"), 11.0 / 20.0);
  EXPECT_DOUBLE_EQ(attention.at("gpu_ms"), 9.0);
  EXPECT_EQ(attention.at("parameters"), 200000);
  EXPECT_EQ(attention.at("op_types"),
            json({"aten::gather", "aten::matmul", "aten::softmax", "aten::transpose"}));
  EXPECT_EQ(attention.at("has_op").at("aten::softmax"), true);
  EXPECT_FALSE(attention.at("has_op").contains("aten::linear"));
  EXPECT_EQ(attention.at("op_input_elements"), json({{"aten::softmax", 4194304}}));
  EXPECT_DOUBLE_EQ(attention.at("kept_for_backward_mb"), 48.0) << "the memory section's";
  EXPECT_FALSE(modules.at("blocks.0.mlp").contains("kept_for_backward_mb")) << "not measured";
  EXPECT_FALSE(modules.at("blocks.0.mlp").contains("op_input_elements")) << "none recorded";
  EXPECT_TRUE(modules.contains(""));  // the root
}

TEST(BuildFacts, UnmeasuredModuleTimesAreAbsentNotZero) {
  const json head = BuildFacts(SampleReportAllMeasured()).at("modules").at("head");
  EXPECT_EQ(head.at("measured"), false);
  for (const char* field : {"forward_ms", "backward_ms", "ms", "share", "gpu_ms"}) {
    EXPECT_FALSE(head.contains(field)) << field;
  }
  EXPECT_EQ(head.at("parameters"), 1000);
}

TEST(BuildFacts, GpuTimesOnlyWithAGpuProbe) {
  const json measured = BuildFacts(SampleReportAllMeasured());
  EXPECT_DOUBLE_EQ(measured.at("ops")[0].at("gpu_ms"), 5.5);
  const json cpu = BuildFacts(SampleReportNothingMeasured());
  EXPECT_FALSE(cpu.at("ops")[0].contains("gpu_ms"));
  EXPECT_EQ(cpu.at("ops")[0].at("name"), "aten::addmm");
  EXPECT_EQ(cpu.at("ops")[0].at("calls"), 4);
  EXPECT_DOUBLE_EQ(cpu.at("ops")[0].at("share"), 8.0 / 40.0);
  EXPECT_DOUBLE_EQ(cpu.at("ops")[0].at("self_ms"), 6.5);
}

TEST(BuildFacts, ProbeFactsOnlyWhenMeasured) {
  const json cpu = BuildFacts(SampleReportNothingMeasured());
  for (const char* fact : {"gpu", "syncs", "copies", "memory", "data"}) {
    EXPECT_FALSE(cpu.contains(fact)) << fact;
  }
  // A GPU run that found no syncs measured that: an empty list, not an absent fact.
  RunReport report = SampleReportAllMeasured();
  report.syncs.clear();
  const json gpu = BuildFacts(report);
  EXPECT_TRUE(gpu.at("syncs").is_array());
  EXPECT_TRUE(gpu.at("syncs").empty());
}

TEST(BuildFacts, GpuSyncCopyAndMemoryFacts) {
  const json facts = BuildFacts(SampleReportAllMeasured());
  const json& gpu = facts.at("gpu");
  EXPECT_DOUBLE_EQ(gpu.at("busy_fraction"), 0.8);
  EXPECT_NEAR(gpu.at("idle_ms").get<double>(), 4.0, 1e-9);
  EXPECT_DOUBLE_EQ(gpu.at("achieved_occupancy"), 0.6);

  const json& sync = facts.at("syncs")[0];
  EXPECT_EQ(sync.at("op"), "aten::item");
  EXPECT_DOUBLE_EQ(sync.at("share"), 0.2 / 20.0);

  const json& copy = facts.at("copies")[0];
  EXPECT_DOUBLE_EQ(copy.at("mb_per_step"), 4096.0 / (1024 * 1024));
  EXPECT_EQ(copy.at("pageable"), true);

  const json& memory = facts.at("memory");
  EXPECT_DOUBLE_EQ(memory.at("peak_reserved_share"), 32000.0 / 81559.0);
  EXPECT_EQ(memory.at("device_allocs"), 0);
}

TEST(BuildFacts, DataWaitFromTheInputStage) {
  const json data = BuildFacts(SampleReportAllMeasured()).at("data");
  EXPECT_DOUBLE_EQ(data.at("wait_ms"), 1.0);
  EXPECT_DOUBLE_EQ(data.at("wait_share"), 1.0 / 20.0);
  EXPECT_EQ(data.at("workers"), 2);
  EXPECT_EQ(data.at("pin_memory"), true);
  RunReport unknown_step = SampleReportAllMeasured();
  unknown_step.step.median_ms = 0;
  EXPECT_FALSE(BuildFacts(unknown_step).at("data").contains("wait_share"));
}

TEST(BuildFacts, TheInputStageByPieceWithItsShapesAndDtype) {
  const json stage = BuildFacts(SampleReportAllMeasured()).at("data").at("stage");
  EXPECT_DOUBLE_EQ(stage.at("batch_ms"), 8.0);
  EXPECT_EQ(stage.at("output_shape"), json({32, 1, 128, 128}));
  EXPECT_EQ(stage.at("output_dtype"), "float32");
  EXPECT_EQ(stage.at("cores"), 16);
  EXPECT_DOUBLE_EQ(stage.at("worker_busy_share"), 0.95);
  const json& piece = stage.at("pieces").at(0);
  EXPECT_EQ(piece.at("name"), "random_dilation");
  EXPECT_EQ(piece.at("kind"), "transform");
  EXPECT_EQ(piece.at("source").at("line"), 30);
  EXPECT_DOUBLE_EQ(piece.at("share"), 0.75);
  EXPECT_EQ(piece.at("input_shape"), json({32, 1, 256, 256}));
  EXPECT_EQ(piece.at("dtype"), "float32");
  EXPECT_EQ(piece.at("input_is_binary"), true);

  // Unmeasured: absent, never a zero or an empty string.
  RunReport report = SampleReportAllMeasured();
  report.data->stage->worker_busy_share.reset();
  report.data->stage->output_dtype.clear();
  InputStagePiece& unknown = report.data->stage->pieces[0];
  unknown.source.reset();
  unknown.dtype.clear();
  unknown.input_is_binary.reset();
  const json sparse = BuildFacts(report).at("data").at("stage");
  EXPECT_FALSE(sparse.contains("worker_busy_share"));
  EXPECT_FALSE(sparse.contains("output_dtype"));
  for (const char* fact : {"source", "dtype", "input_is_binary"}) {
    EXPECT_FALSE(sparse.at("pieces").at(0).contains(fact)) << fact;
  }
  report.data->stage.reset();
  EXPECT_FALSE(BuildFacts(report).at("data").contains("stage"));
}

// Whether the workers supply a batch as fast as the step computes one, and whether the data phase
// is then the main process's own work (engine/model/step.h), which the data-loader-stall rule and
// the step breakdown read: 2 workers at 8 ms a batch supply one each 4 ms, against a step of 20.4
// ms less its 0.8 ms unprofiled wait.
TEST(BuildFacts, WhetherTheWorkersKeepUpAndTheDataPhaseIsTheMainProcesss) {
  RunReport report = SampleReportAllMeasured();
  json data = BuildFacts(report).at("data");
  EXPECT_EQ(data.at("workers_keep_up"), true);
  EXPECT_EQ(data.at("main_process_work"), false) << "busy 95 % of the window";

  report.data->stage->worker_busy_share = 0.03;
  EXPECT_EQ(BuildFacts(report).at("data").at("main_process_work"), true);

  // 39 ms a batch, 19.5 ms a batch from 2 workers: faster than the 19.6 ms the unprofiled steps
  // compute, slower than the 19.4 ms of the profiled window's wait, read without them.
  report.data->stage->batch_ms = 39;
  EXPECT_EQ(BuildFacts(report).at("data").at("workers_keep_up"), true);
  report.step.timed_phases.reset();
  data = BuildFacts(report).at("data");
  EXPECT_EQ(data.at("workers_keep_up"), false);
  EXPECT_EQ(data.at("main_process_work"), false) << "idle, but behind the step";

  // Unmeasured: absent.
  report.data->stage->worker_busy_share.reset();
  data = BuildFacts(report).at("data");
  EXPECT_TRUE(data.contains("workers_keep_up"));
  EXPECT_FALSE(data.contains("main_process_work"));
  report.data->workers = 0;
  data = BuildFacts(report).at("data");
  EXPECT_FALSE(data.contains("workers_keep_up"));
  EXPECT_FALSE(data.contains("main_process_work"));
}

TEST(BuildFacts, TheTrainingLoopsDataLoaderAndItsEpochStart) {
  const json loader = BuildFacts(SampleReportAllMeasured()).at("data").at("loader");
  EXPECT_EQ(loader.at("workers"), 2);
  EXPECT_EQ(loader.at("persistent"), false);
  EXPECT_EQ(loader.at("epoch_batches"), 6);
  EXPECT_DOUBLE_EQ(loader.at("batches_per_step"), 1.0);
  EXPECT_EQ(loader.at("epochs_seen"), 3);
  EXPECT_DOUBLE_EQ(loader.at("epoch_start_ms"), 120.0);

  // No epoch started inside a window, an iterable Dataset: absent, never zero.
  RunReport report = SampleReportAllMeasured();
  report.data->loader = LoaderEpochs{2, false, std::nullopt, 1.0, 0, std::nullopt};
  const json unseen = BuildFacts(report).at("data").at("loader");
  EXPECT_EQ(unseen.at("epochs_seen"), 0);
  EXPECT_FALSE(unseen.contains("epoch_start_ms"));
  EXPECT_FALSE(unseen.contains("epoch_batches"));
  report.data->loader.reset();
  EXPECT_FALSE(BuildFacts(report).at("data").contains("loader"));
}

TEST(BuildFacts, OptionalGpuEstimatesAreAbsentWhenNotEstimated) {
  RunReport report = SampleReportAllMeasured();
  report.gpu->achieved_occupancy.reset();
  report.gpu->sm_efficiency.reset();
  const json gpu = BuildFacts(report).at("gpu");
  EXPECT_FALSE(gpu.contains("achieved_occupancy"));
  EXPECT_FALSE(gpu.contains("sm_efficiency"));
}

TEST(ReadRunEnvironment, ReadsTheAllocatorVariable) {
  ::setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", 1);
  EXPECT_EQ(ReadRunEnvironment().cuda_alloc_conf, "expandable_segments:True");
  ::unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  EXPECT_EQ(ReadRunEnvironment().cuda_alloc_conf, "");
}

}  // namespace
}  // namespace advisor
