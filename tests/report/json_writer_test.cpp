#include "engine/report/json_writer.h"

#include <gtest/gtest.h>

#include "tests/report/sample_report.h"

namespace advisor {
namespace {

using nlohmann::json;
using testing::FilledReport;
using testing::MinimalReport;
using testing::PageFaultReport;
using testing::SnapshotReport;

TEST(JsonWriter, HasEveryTopLevelSection) {
  const json j = ReportToJson(FilledReport());
  EXPECT_EQ(j.at("schema_version"), 1);
  for (const char* key :
       {"run", "step", "bisection", "hotspot", "cross_check", "modules", "ops", "broadcasts", "gpu",
        "memory", "data", "syncs", "copies", "findings", "fixes", "data_quality"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(JsonWriter, RunAndStepAreTyped) {
  const json j = ReportToJson(FilledReport());
  const json& run = j.at("run");
  EXPECT_EQ(run.at("model"), "models/vit_small.pt");
  EXPECT_EQ(run.at("device"), "cuda");
  EXPECT_EQ(run.at("torch_version"), "2.5.1");
  EXPECT_TRUE(run.at("warmup_steps").is_number_integer());
  EXPECT_EQ(run.at("window_steps"), 20);
  EXPECT_EQ(run.at("windows"), 4);
  EXPECT_EQ(run.at("site_windows"), 1);
  EXPECT_EQ(run.at("batch_size"), 128);
  EXPECT_TRUE(run.at("deterministic").is_boolean());
  EXPECT_DOUBLE_EQ(run.at("wall_s").get<double>(), 83.27);
  for (const char* key : {"device_name", "advisor_version", "dtype"}) {
    EXPECT_TRUE(run.at(key).is_string()) << key;
  }

  const json& step = j.at("step");
  EXPECT_DOUBLE_EQ(step.at("median_ms").get<double>(), 41.237);
  for (const char* key : {"min_ms", "max_ms", "forward_ms", "backward_ms", "optimizer_ms"}) {
    EXPECT_TRUE(step.at(key).is_number()) << key;
  }
  EXPECT_EQ(step.at("timed_by"), "cuda_events");
  EXPECT_FALSE(run.at("cuda_graphs").get<bool>());
  EXPECT_TRUE(step.at("graphed_median_ms").is_null());
}

TEST(JsonWriter, AGraphedWorkloadHasItsGraphedStepTime) {
  RunReport report = FilledReport();
  report.run.cuda_graphs = true;
  report.step.graphed_median_ms = 7.5;
  const json j = ReportToJson(report);
  EXPECT_TRUE(j.at("run").at("cuda_graphs").get<bool>());
  EXPECT_DOUBLE_EQ(j.at("step").at("graphed_median_ms").get<double>(), 7.5);
  EXPECT_DOUBLE_EQ(j.at("step").at("median_ms").get<double>(), 41.237);
}

TEST(JsonWriter, BisectionLevelsKeepCandidatesAndChoices) {
  const json levels = ReportToJson(FilledReport()).at("bisection").at("levels");
  ASSERT_EQ(levels.size(), 3u);
  const json& second = levels.at(1);
  EXPECT_EQ(second.at("depth"), 2);
  EXPECT_EQ(second.at("parent"), "blocks");
  EXPECT_EQ(second.at("chosen"), "blocks.5");
  EXPECT_EQ(second.at("reused_window"), true);
  EXPECT_TRUE(second.at("reason").is_string());
  const json& first_candidate = levels.at(0).at("candidates").at(0);
  EXPECT_EQ(first_candidate.at("path"), "blocks");
  EXPECT_EQ(first_candidate.at("instances"), 12);
  EXPECT_DOUBLE_EQ(first_candidate.at("share").get<double>(), 0.917);
  EXPECT_DOUBLE_EQ(first_candidate.at("gpu_ms").get<double>(), 33.5);
  EXPECT_TRUE(first_candidate.at("forward_ms").is_number());
  EXPECT_TRUE(first_candidate.at("backward_ms").is_number());
  EXPECT_EQ(levels.at(2).at("chosen"), "blocks.5.mlp");
  EXPECT_EQ(levels.at(2).at("measured_by"), "markers");
}

// Inside a model compiled whole, from its kernels' provenance: no window, so no window's step; the
// hot spot's generated kernel with the ops its name lists.
TEST(JsonWriter, ALevelMeasuredByProvenanceSaysSoAndHasNoWindowStep) {
  RunReport report = FilledReport();
  report.levels.at(0).measured_by = LevelMeasure::kProvenance;
  report.levels.at(0).window_step_ms = 0;
  report.levels.at(2).measured_by = LevelMeasure::kRegionalCompilation;
  report.hotspot->op = "triton_red_fused_native_layer_norm_1";
  report.hotspot->fused_ops = "native_layer_norm";
  const json j = ReportToJson(report);
  const json& levels = j.at("bisection").at("levels");
  EXPECT_EQ(levels.at(0).at("measured_by"), "provenance");
  EXPECT_TRUE(levels.at(0).at("window_step_ms").is_null());
  EXPECT_EQ(levels.at(2).at("measured_by"), "regional_compilation");
  EXPECT_TRUE(levels.at(2).at("window_step_ms").is_number());
  EXPECT_EQ(j.at("hotspot").at("fused_ops"), "native_layer_norm");
}

TEST(JsonWriter, HotspotCarriesSourceAndTopOps) {
  const json hotspot = ReportToJson(FilledReport()).at("hotspot");
  EXPECT_EQ(hotspot.at("path"), "blocks.5.mlp");
  EXPECT_EQ(hotspot.at("phase"), "backward");
  EXPECT_EQ(hotspot.at("op"), "GatherBackward0");
  EXPECT_EQ(hotspot.at("forward_op"), "aten::gather");
  EXPECT_DOUBLE_EQ(hotspot.at("ms").get<double>(), 4.731);
  EXPECT_DOUBLE_EQ(hotspot.at("share").get<double>(), 0.1147);
  EXPECT_DOUBLE_EQ(hotspot.at("module_ms").get<double>(), 5.77);
  EXPECT_DOUBLE_EQ(hotspot.at("module_share").get<double>(), 0.14);
  EXPECT_EQ(hotspot.at("source").at("file"), "code/__torch__/timm/layers/mlp.py");
  EXPECT_EQ(hotspot.at("source").at("line"), 42);
  EXPECT_EQ(hotspot.at("source").at("text"), "x = torch.gather(x, 1, index)");
  ASSERT_EQ(hotspot.at("top_ops").size(), 3u);
  const json& top = hotspot.at("top_ops").at(0);
  EXPECT_EQ(top.at("name"), "GatherBackward0");
  EXPECT_EQ(top.at("calls"), 1);
  EXPECT_DOUBLE_EQ(top.at("gpu_ms").get<double>(), 4.52);
}

TEST(JsonWriter, HotspotListsTheLinesThatRanItsOp) {
  EXPECT_EQ(ReportToJson(FilledReport()).at("hotspot").at("op_lines"), json::array())
      << "a door that labels no lines";
  RunReport report = FilledReport();
  report.hotspot->op_lines = {{{"/home/u/train.py", 40, "pairs = h.unsqueeze(1) * self.rel_pos"},
                               "aten::mul",
                               1,
                               4.2,
                               0.888},
                              {{"/home/u/train.py", 42, "h = self.dropout(self.proj(h))"},
                               "aten::dropout",
                               1,
                               0.531,
                               0.112}};
  const json lines = ReportToJson(report).at("hotspot").at("op_lines");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines.at(0).at("file"), "/home/u/train.py");
  EXPECT_EQ(lines.at(0).at("line"), 40);
  EXPECT_EQ(lines.at(0).at("text"), "pairs = h.unsqueeze(1) * self.rel_pos");
  EXPECT_EQ(lines.at(0).at("forward_op"), "aten::mul");
  EXPECT_DOUBLE_EQ(lines.at(0).at("calls").get<double>(), 1);
  EXPECT_DOUBLE_EQ(lines.at(0).at("ms").get<double>(), 4.2);
  EXPECT_DOUBLE_EQ(lines.at(0).at("share").get<double>(), 0.888);
  EXPECT_EQ(lines.at(1).at("forward_op"), "aten::dropout");
}

// What python-loop judged a line's loop by (rules/python_loop.lua): the line's ops by name, and
// the view op's time the small op is measured against.
TEST(JsonWriter, HotspotLinesCarryTheirOpsByNameAndTheViewOpsTime) {
  EXPECT_TRUE(ReportToJson(FilledReport()).at("hotspot").at("view_op_us").is_null())
      << "no line ran a view op";
  RunReport report = FilledReport();
  report.hotspot->view_op_us = 2.2;
  SourceLine line;
  line.source = {"/home/u/seq.py", 70, "gx = (inputs @ self.w_ih.t() + self.b_ih)[:, t]"};
  line.op_kinds = {{"aten::matmul", 48, 480, 0.87}, {"aten::slice", 48, 2.1, 0.004}};
  report.hotspot->lines = {line};
  const json hotspot = ReportToJson(report).at("hotspot");
  EXPECT_DOUBLE_EQ(hotspot.at("view_op_us").get<double>(), 2.2);
  const json kinds = hotspot.at("lines").at(0).at("op_kinds");
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds.at(0).at("name"), "aten::matmul");
  EXPECT_DOUBLE_EQ(kinds.at(0).at("calls").get<double>(), 48);
  EXPECT_DOUBLE_EQ(kinds.at(0).at("us").get<double>(), 480);
  EXPECT_DOUBLE_EQ(kinds.at(0).at("share").get<double>(), 0.87);
  EXPECT_EQ(kinds.at(1).at("name"), "aten::slice");
}

TEST(JsonWriter, OpsHaveInclusiveAndSelfTime) {
  const json op = ReportToJson(FilledReport()).at("ops").at(1);
  EXPECT_EQ(op.at("name"), "aten::addmm");
  EXPECT_DOUBLE_EQ(op.at("ms").get<double>(), 3.91);
  EXPECT_DOUBLE_EQ(op.at("self_ms").get<double>(), 3.05);
}

TEST(JsonWriter, OpsHaveTheirOwnDeviceTimeWhereAGpuProbeRan) {
  RunReport report = FilledReport();
  report.ops[1].self_gpu_ms = 2.5;
  EXPECT_DOUBLE_EQ(ReportToJson(report).at("ops").at(1).at("self_gpu_ms").get<double>(), 2.5);
  report.gpu.reset();
  EXPECT_TRUE(ReportToJson(report).at("ops").at(1).at("self_gpu_ms").is_null())
      << "no GPU probe: null, not 0";
}

TEST(JsonWriter, TheUnprofiledStepsPhasesWhereTheDoorTimedThem) {
  RunReport report = FilledReport();
  EXPECT_TRUE(ReportToJson(report).at("step").at("timed_phases_ms").is_null());
  StepPhaseTimes timed;
  timed.data_ms = 0.5;
  timed.forward_ms = 12;
  timed.backward_ms = 25.5;
  timed.optimizer_ms = 2.5;
  timed.rest_ms = 0.7;
  report.step.timed_phases = timed;
  const json phases = ReportToJson(report).at("step").at("timed_phases_ms");
  EXPECT_DOUBLE_EQ(phases.at("data").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(phases.at("backward").get<double>(), 25.5);
  EXPECT_TRUE(phases.at("loss").is_null()) << "a model.pt's forward holds its loss";
  EXPECT_DOUBLE_EQ(phases.at("rest").get<double>(), 0.7);
}

TEST(JsonWriter, PageFaultsWhereCountedAndNullWhereNot) {
  const json counted = ReportToJson(PageFaultReport());
  EXPECT_DOUBLE_EQ(counted.at("run").at("page_fault_us").get<double>(), 1.3);
  EXPECT_DOUBLE_EQ(counted.at("step").at("page_fault_ms").get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(counted.at("ops").at(0).at("page_fault_ms").get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(counted.at("hotspot").at("top_ops").at(0).at("page_fault_ms").get<double>(), 0);
  const json uncounted = ReportToJson(MinimalReport());
  EXPECT_TRUE(uncounted.at("run").at("page_fault_us").is_null());
  EXPECT_TRUE(uncounted.at("step").at("page_fault_ms").is_null());
  EXPECT_TRUE(uncounted.at("ops").at(0).at("page_fault_ms").is_null()) << "not counted, not 0";
}

TEST(JsonWriter, HotspotWithoutSourceHasNullSource) {
  RunReport report = FilledReport();
  report.hotspot->source.reset();
  EXPECT_TRUE(ReportToJson(report).at("hotspot").at("source").is_null());
}

TEST(JsonWriter, GpuMemorySyncsAndCopies) {
  const json j = ReportToJson(FilledReport());
  const json& gpu = j.at("gpu");
  EXPECT_DOUBLE_EQ(gpu.at("busy_fraction").get<double>(), 0.712);
  EXPECT_DOUBLE_EQ(gpu.at("achieved_occupancy").get<double>(), 0.61);
  EXPECT_TRUE(gpu.at("sm_efficiency").is_null()) << "an estimate that was not made is null";
  EXPECT_TRUE(gpu.at("kernels_per_step").is_number());
  EXPECT_EQ(j.at("memory").at("alloc_retries"), 3);
  EXPECT_DOUBLE_EQ(j.at("memory").at("peak_allocated_mb").get<double>(), 10240.5);
  EXPECT_EQ(j.at("syncs").at(0).at("kind"), "cudaStreamSynchronize");
  EXPECT_EQ(j.at("syncs").at(0).at("count_per_step"), 1);
  EXPECT_EQ(j.at("syncs").at(1).at("path"), "");
  EXPECT_EQ(j.at("copies").at(0).at("pageable"), true);
  EXPECT_DOUBLE_EQ(j.at("copies").at(0).at("bytes_per_step").get<double>(), 77070336);
  EXPECT_EQ(j.at("cross_check").at("backward_ops_agreeing"), 405);
}

TEST(JsonWriter, FindingsUseSeverityNamesAndNullForNoEstimate) {
  const json findings = ReportToJson(FilledReport()).at("findings");
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings.at(0).at("severity"), "high");
  EXPECT_EQ(findings.at(0).at("rule"), "gather-backward-scatter");
  EXPECT_EQ(findings.at(0).at("recipe"), "gather-to-index-select");
  EXPECT_DOUBLE_EQ(findings.at(0).at("expected_gain_ms").get<double>(), 4.1);
  EXPECT_EQ(findings.at(1).at("severity"), "medium");
  EXPECT_EQ(findings.at(2).at("severity"), "low");
  EXPECT_TRUE(findings.at(2).at("expected_gain_ms").is_null());
  for (const char* key : {"path", "op", "message", "evidence"}) {
    EXPECT_TRUE(findings.at(0).at(key).is_string()) << key;
  }
}

TEST(JsonWriter, FixesShowOnlyWhatWasMeasured) {
  const json fixes = ReportToJson(FilledReport()).at("fixes");
  ASSERT_EQ(fixes.size(), 3u);
  const json& verified = fixes.at(0);
  EXPECT_EQ(verified.at("status"), "verified");
  EXPECT_EQ(verified.at("kind"), "rewrite");
  EXPECT_EQ(verified.at("preserves_semantics"), true);
  EXPECT_EQ(verified.at("sites"), json::array({"blocks.5.mlp"}));
  EXPECT_DOUBLE_EQ(verified.at("baseline").at("median_ms").get<double>(), 41.2);
  EXPECT_EQ(verified.at("candidate").at("samples"), 30);
  EXPECT_DOUBLE_EQ(verified.at("speedup").get<double>(), 1.111);
  EXPECT_DOUBLE_EQ(verified.at("speedup_low").get<double>(), 1.10);
  EXPECT_DOUBLE_EQ(verified.at("speedup_ci_low").get<double>(), 1.09);
  EXPECT_DOUBLE_EQ(verified.at("speedup_ci_high").get<double>(), 1.13);
  EXPECT_EQ(verified.at("rounds"), 4);
  EXPECT_EQ(verified.at("step_statistic"), "min");
  EXPECT_DOUBLE_EQ(verified.at("baseline").at("mean_ms").get<double>(), 41.6);
  EXPECT_DOUBLE_EQ(verified.at("numerics").at("tolerance").get<double>(), 1e-4);
  EXPECT_DOUBLE_EQ(verified.at("peak_memory_mb").get<double>(), 10100);

  const json& failed = fixes.at(2);
  EXPECT_EQ(failed.at("status"), "failed");
  EXPECT_TRUE(failed.at("baseline").is_object());
  EXPECT_TRUE(failed.at("candidate").is_null()) << "the fixed model never ran";
  EXPECT_TRUE(failed.at("speedup").is_null());
  EXPECT_TRUE(failed.at("speedup_low").is_null());
  EXPECT_TRUE(failed.at("speedup_ci_low").is_null());
  EXPECT_EQ(failed.at("rounds"), 0);
  EXPECT_TRUE(failed.at("step_statistic").is_null()) << "nothing was compared";
  EXPECT_TRUE(failed.at("numerics").is_null());
  EXPECT_TRUE(failed.at("peak_memory_mb").is_null());
  EXPECT_EQ(failed.at("detail"), "RuntimeError: the rewritten graph does not type-check");
}

// torch.compile's rounds of processes: the first round's compile beside the later rounds', each
// with what inductor's FX graph cache found.
TEST(JsonWriter, EachRoundsWarmUpAndCompileCacheLookups) {
  RunReport report = FilledReport();
  report.fixes.at(0).warmup_s = 31.5;
  report.fixes.at(0).warmup_rounds = {{31.5, FxGraphCacheLookups{0, 4, 1}},
                                      {8.25, FxGraphCacheLookups{4, 0, 1}},
                                      {2.0, std::nullopt}};
  const json fixes = ReportToJson(report).at("fixes");
  const json& rounds = fixes.at(0).at("warmup_rounds");
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_DOUBLE_EQ(rounds.at(0).at("warmup_s").get<double>(), 31.5);
  EXPECT_EQ(rounds.at(0).at("fx_graph_cache"), json({{"hits", 0}, {"misses", 4}, {"bypasses", 1}}));
  EXPECT_DOUBLE_EQ(rounds.at(1).at("warmup_s").get<double>(), 8.25);
  EXPECT_EQ(rounds.at(1).at("fx_graph_cache").at("hits"), 4);
  EXPECT_TRUE(rounds.at(2).at("fx_graph_cache").is_null()) << "nothing compiled with inductor";
  EXPECT_EQ(fixes.at(1).at("warmup_rounds"), json::array()) << "no round reported a warm-up";
}

// Measured in blocks of a run a DataLoader fed: each side's wait for a batch per timed step, the
// timed steps that began an epoch, their waits and the loader's epoch, and what an epoch's start
// costs each side.
TEST(JsonWriter, EachSidesWaitForTheLoadersBatches) {
  RunReport report = FilledReport();
  FixResult& fed = report.fixes.at(0);
  fed.loader_wait_ms = 19.5;
  fed.baseline_loader_wait_ms = 0.25;
  fed.epoch_starts = 2;
  fed.baseline_epoch_starts = 0;
  fed.epoch_start_wait_ms = 190.5;
  fed.epoch_batches = 64;
  fed.epoch_start_extra_wait_ms = 300.0;
  fed.host_lead_ms = 20.0;
  fed.baseline_host_lead_ms = 150.0;
  fed.epoch_start_cost_ms = 280.0;
  fed.baseline_epoch_start_cost_ms = 150.0;
  fed.host_paced = true;
  fed.baseline_host_paced = false;
  const json fixes = ReportToJson(report).at("fixes");
  EXPECT_DOUBLE_EQ(fixes.at(0).at("loader_wait_ms").get<double>(), 19.5);
  EXPECT_DOUBLE_EQ(fixes.at(0).at("baseline_loader_wait_ms").get<double>(), 0.25);
  EXPECT_EQ(fixes.at(0).at("epoch_starts"), 2);
  EXPECT_EQ(fixes.at(0).at("baseline_epoch_starts"), 0);
  EXPECT_DOUBLE_EQ(fixes.at(0).at("epoch_start_wait_ms").get<double>(), 190.5);
  EXPECT_TRUE(fixes.at(0).at("baseline_epoch_start_wait_ms").is_null()) << "none began an epoch";
  EXPECT_EQ(fixes.at(0).at("epoch_batches"), 64);
  EXPECT_DOUBLE_EQ(fixes.at(0).at("epoch_start_extra_wait_ms").get<double>(), 300.0);
  EXPECT_DOUBLE_EQ(fixes.at(0).at("host_lead_ms").get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(fixes.at(0).at("baseline_host_lead_ms").get<double>(), 150.0);
  EXPECT_DOUBLE_EQ(fixes.at(0).at("epoch_start_cost_ms").get<double>(), 280.0);
  EXPECT_DOUBLE_EQ(fixes.at(0).at("baseline_epoch_start_cost_ms").get<double>(), 150.0);
  EXPECT_EQ(fixes.at(0).at("host_paced"), true);
  EXPECT_EQ(fixes.at(0).at("baseline_host_paced"), false);
  for (const char* field :
       {"loader_wait_ms", "baseline_loader_wait_ms", "epoch_starts", "baseline_epoch_starts",
        "epoch_start_wait_ms", "baseline_epoch_start_wait_ms", "epoch_batches",
        "epoch_start_extra_wait_ms", "host_lead_ms", "baseline_host_lead_ms", "epoch_start_cost_ms",
        "baseline_epoch_start_cost_ms", "host_paced", "baseline_host_paced"}) {
    EXPECT_TRUE(fixes.at(1).at(field).is_null()) << field << ": no DataLoader fed its steps";
  }
}

// Each round's timed steps, as the speedup read them, so that a reader can recompute it.
TEST(JsonWriter, EachRoundsTimedSteps) {
  RunReport report = FilledReport();
  report.fixes.at(0).pairs = {{{170.5, 169.0}, {45.25, 44.0}}, {{171.0}, {46.5}}};
  const json fixes = ReportToJson(report).at("fixes");
  const json& pairs = fixes.at(0).at("pairs");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs.at(0).at("baseline_ms"), json({170.5, 169.0}));
  EXPECT_EQ(pairs.at(0).at("candidate_ms"), json({45.25, 44.0}));
  EXPECT_EQ(pairs.at(1).at("candidate_ms"), json({46.5}));
  EXPECT_EQ(fixes.at(1).at("pairs"), json::array()) << "no round ran";
}

TEST(JsonWriter, ModulesNeverInstrumentedHaveNullTimes) {
  const json modules = ReportToJson(FilledReport()).at("modules");
  const json& norm = modules.at(6);
  ASSERT_EQ(norm.at("path"), "norm");
  EXPECT_EQ(norm.at("measured"), false);
  EXPECT_TRUE(norm.at("forward_ms").is_null());
  EXPECT_TRUE(norm.at("backward_ms").is_null());
  EXPECT_TRUE(norm.at("gpu_ms").is_null());
  EXPECT_TRUE(norm.at("window_step_ms").is_null());
  EXPECT_EQ(norm.at("parameters"), 768);
  const json& mlp = modules.at(2);
  EXPECT_DOUBLE_EQ(mlp.at("backward_ms").get<double>(), 5.02);
  EXPECT_EQ(mlp.at("op_types").at(1), "aten::gather");
  EXPECT_TRUE(mlp.at("type").is_string());
}

TEST(JsonWriter, MinimalReportHasNullsWhereNothingWasMeasured) {
  const json j = ReportToJson(MinimalReport());
  EXPECT_TRUE(j.at("hotspot").is_null());
  EXPECT_TRUE(j.at("gpu").is_null());
  EXPECT_TRUE(j.at("memory").is_null());
  EXPECT_TRUE(j.at("data").is_null()) << "no input stage";
  EXPECT_TRUE(j.at("fixes").is_array());
  EXPECT_TRUE(j.at("fixes").empty());
  EXPECT_TRUE(j.at("findings").empty());
  EXPECT_TRUE(j.at("syncs").empty());
  EXPECT_TRUE(j.at("copies").empty());
  // Without a GPU probe there are no kernel times: null, not 0.
  EXPECT_TRUE(j.at("bisection").at("levels").at(0).at("candidates").at(0).at("gpu_ms").is_null());
  EXPECT_TRUE(j.at("ops").at(0).at("gpu_ms").is_null());
  EXPECT_TRUE(j.at("modules").at(0).at("gpu_ms").is_null());
  EXPECT_DOUBLE_EQ(j.at("modules").at(0).at("forward_ms").get<double>(), 0.8);
  EXPECT_EQ(j.at("bisection").at("levels").at(0).at("chosen"), "");
  EXPECT_EQ(j.at("data_quality"), json::array({"no GPU: CUPTI probe did not run"}));
}

TEST(JsonWriter, LevelsRankedByHostTimeHaveNoKernelTimesWhileTheBaselineKeepsThem) {
  RunReport report = FilledReport();
  report.levels_ranked_by = "host";
  const json j = ReportToJson(report);
  EXPECT_EQ(j.at("bisection").at("ranked_by"), "host");
  EXPECT_TRUE(j.at("bisection").at("levels").at(0).at("candidates").at(0).at("gpu_ms").is_null());
  EXPECT_TRUE(j.at("hotspot").at("top_ops").at(0).at("gpu_ms").is_null());
  EXPECT_TRUE(j.at("modules").at(0).at("gpu_ms").is_null());
  EXPECT_TRUE(j.at("ops").at(0).at("gpu_ms").is_number()) << "the baseline recorded kernels";
  EXPECT_FALSE(j.at("gpu").is_null());
}

TEST(JsonWriter, TextSurvivesInvalidUtf8FromTheModelFile) {
  RunReport report = MinimalReport();
  report.modules[0].path = "bad\xff\xfepath";
  std::string text;
  ASSERT_NO_THROW(text = ReportToJsonText(report));
  const json parsed = json::parse(text);
  EXPECT_EQ(parsed.at("modules").at(0).at("path"), "bad\xEF\xBF\xBD\xEF\xBF\xBDpath");
}

TEST(JsonWriter, TextParsesBackToTheSameDocument) {
  const RunReport report = FilledReport();
  EXPECT_EQ(json::parse(ReportToJsonText(report)), ReportToJson(report));
}

TEST(JsonWriter, DataWaitOfTheInputStage) {
  RunReport report = FilledReport();
  report.data = DataWait{10.31, 2, true, std::nullopt};
  const json data = ReportToJson(report).at("data");
  EXPECT_DOUBLE_EQ(data.at("wait_ms").get<double>(), 10.31);
  EXPECT_EQ(data.at("workers"), 2);
  EXPECT_EQ(data.at("pin_memory"), true);
  EXPECT_TRUE(data.at("stage").is_null()) << "the stage itself was not measured";
  EXPECT_TRUE(data.at("loader").is_null()) << "no script's DataLoader";

  report.data->loader = LoaderEpochs{2, false, std::nullopt, 2.0, 0, std::nullopt};
  const json loader = ReportToJson(report).at("data").at("loader");
  EXPECT_EQ(loader.at("workers"), 2);
  EXPECT_EQ(loader.at("persistent"), false);
  EXPECT_TRUE(loader.at("epoch_batches").is_null()) << "an iterable Dataset";
  EXPECT_DOUBLE_EQ(loader.at("batches_per_step").get<double>(), 2.0);
  EXPECT_EQ(loader.at("epochs_seen"), 0);
  EXPECT_TRUE(loader.at("epoch_start_ms").is_null()) << "no epoch started inside a window";
}

TEST(JsonWriter, TheWorkerSeriesAndItsKnee) {
  RunReport report = FilledReport();
  report.fixes.front().worker_series = {{2, 300.0, 2.6, 106.7, "verified"},
                                        {4, 0.0, 0.0, std::nullopt, "failed"}};
  report.fixes.front().knee_workers = 2;
  const json fix = ReportToJson(report).at("fixes").at(0);
  EXPECT_EQ(fix.at("knee_workers"), 2);
  const json& series = fix.at("worker_series");
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].at("workers"), 2);
  EXPECT_DOUBLE_EQ(series[0].at("step_ms").get<double>(), 300.0);
  EXPECT_DOUBLE_EQ(series[0].at("samples_per_s").get<double>(), 106.7);
  EXPECT_TRUE(series[1].at("step_ms").is_null()) << "a failed count was not measured";
  EXPECT_EQ(series[1].at("status"), "failed");
  EXPECT_TRUE(ReportToJson(FilledReport()).at("fixes").at(0).at("knee_workers").is_null());
}

TEST(JsonWriter, TheInputStageByPiece) {
  RunReport report = FilledReport();
  report.data = DataWait{10.31, 0, false, std::nullopt};
  InputStageProfile stage;
  stage.batch_ms = 9.0;
  stage.batches = 12;
  stage.output_shape = {8, 1, 64, 64};
  stage.cores = 2;
  stage.pieces = {{"aten::conv2d",
                   "line",
                   SourceLocation{"model.py", 7, "x = F.conv2d(x, k)"},
                   6.3,
                   0.7,
                   {8, 1, 128, 128},
                   {8, 1, 128, 128},
                   "float32",
                   std::nullopt}};
  report.data->stage = stage;
  const json json_stage = ReportToJson(report).at("data").at("stage");
  EXPECT_DOUBLE_EQ(json_stage.at("batch_ms").get<double>(), 9.0);
  EXPECT_EQ(json_stage.at("batches"), 12);
  EXPECT_EQ(json_stage.at("output_shape"), json({8, 1, 64, 64}));
  EXPECT_TRUE(json_stage.at("worker_busy_share").is_null());
  const json& piece = json_stage.at("pieces").at(0);
  EXPECT_EQ(piece.at("source").at("line"), 7);
  EXPECT_EQ(piece.at("input_shape"), json({8, 1, 128, 128}));
  EXPECT_TRUE(piece.at("input_is_binary").is_null());
}

TEST(JsonWriter, ASnapshotsMemoryHasItsPeakModulesAndHistory) {
  const json j = ReportToJson(SnapshotReport());
  EXPECT_EQ(j.at("run").at("mode"), "snapshot");
  EXPECT_TRUE(j.at("step").is_null());
  const json& memory = j.at("memory");
  EXPECT_TRUE(memory.at("device_total_mb").is_null());  // a snapshot does not say
  EXPECT_TRUE(memory.at("alloc_retries").is_null());
  EXPECT_EQ(memory.at("num_device_allocs"), 7);
  const json& peak = memory.at("peak");
  EXPECT_DOUBLE_EQ(peak.at("mb").get<double>(), 3072.5);
  EXPECT_EQ(peak.at("phase"), "backward");
  EXPECT_EQ(peak.at("path"), "blocks.1");
  EXPECT_EQ(peak.at("category"), "forward");
  EXPECT_DOUBLE_EQ(peak.at("by_category").at("before_history").get<double>(), 1000);
  EXPECT_EQ(peak.at("by_user_frame").at(0).at("frame"), "/home/me/model.py:42 in forward");
  EXPECT_EQ(peak.at("by_user_frame").at(0).at("allocations"), 60);
  EXPECT_DOUBLE_EQ(peak.at("reserved_mb").get<double>(), 3584);
  EXPECT_DOUBLE_EQ(peak.at("fragmentation_mb").get<double>(), 511.5);
  EXPECT_DOUBLE_EQ(peak.at("largest_free_block_mb").get<double>(), 300);
  const json& modules = memory.at("modules");
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_DOUBLE_EQ(modules.at(0).at("kept_for_backward_mb").get<double>(), 1024);
  EXPECT_FALSE(modules.at(0).contains("backward_peak_mb"));
  EXPECT_FALSE(modules.at(1).contains("kept_for_backward_mb"));
  EXPECT_DOUBLE_EQ(modules.at(1).at("backward_peak_mb").get<double>(), 12);
  const json& history = memory.at("history");
  EXPECT_EQ(history.at("time_unit"), "ms");
  EXPECT_EQ(history.at("events"), 52000);
  EXPECT_EQ(history.at("timeline").size(), 4u);
  EXPECT_EQ(history.at("spans").at(1).at("kind"), "module");
  EXPECT_EQ(history.at("spans").at(1).at("label"), "blocks.0");
  EXPECT_DOUBLE_EQ(history.at("ooms").at(0).at("requested_mb").get<double>(), 8192);
  EXPECT_EQ(history.at("end_state").at("matches"), true);
}

TEST(JsonWriter, WhatASnapshotCannotTellIsLeftOut) {
  RunReport report = SnapshotReport();
  report.memory->peak->phase.clear();
  report.memory->peak->path.clear();
  report.memory->peak->largest_free_block_mb.reset();
  report.memory->history->timed = false;
  const json memory = ReportToJson(report).at("memory");
  for (const char* key : {"phase", "path", "largest_free_block_mb"}) {
    EXPECT_FALSE(memory.at("peak").contains(key)) << key;
  }
  EXPECT_EQ(memory.at("history").at("time_unit"), "event");
}

TEST(JsonWriter, AWindowsMemoryHasNoSnapshotFields) {
  const json memory = ReportToJson(FilledReport()).at("memory");
  for (const char* key : {"peak", "modules", "history"}) EXPECT_FALSE(memory.contains(key)) << key;
  EXPECT_FALSE(memory.at("device_total_mb").is_null());
}

}  // namespace
}  // namespace advisor
