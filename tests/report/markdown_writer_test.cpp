#include "engine/report/markdown_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "tests/report/sample_report.h"
#include "tests/report/text_assertions.h"

namespace advisor {
namespace {

using testing::Contains;
using testing::FilledReport;
using testing::Lacks;
using testing::MinimalReport;
using testing::PageFaultReport;
using testing::SnapshotReport;
using testing::Occurrences;

// The line of `text` that contains `needle`, "" when none does.
std::string LineWith(const std::string& text, const std::string& needle) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

TEST(MarkdownWriter, HasTheSectionsAPersonLooksFor) {
  const std::string md = "\n" + ReportToMarkdown(FilledReport());
  for (const char* heading :
       {"# advisor report: `models/vit_small.pt`", "## Step breakdown", "## Bisection path",
        "### Level 1: children of the model", "### Level 2: children of `blocks`",
        "### Level 3: children of `blocks.5`", "## Hot spot", "## Findings", "## Fixes tried",
        "## GPU", "### Host-device synchronisations", "### Host-to-device copies every step",
        "### Device memory", "## Top ops of the step", "## What was measured on what",
        "### Data quality"}) {
    EXPECT_TRUE(Contains(md, std::string("\n") + heading + "\n")) << heading;
  }
}

// A run that died of out of memory: where it failed, and beside it the instance keeping the most
// for backward, in the summary and in tables of what was live and what each instance kept.
TEST(MarkdownWriter, AnOutOfMemoryNamesTheHolderBesideWhereItFailed) {
  RunReport report = MinimalReport();
  OutOfMemoryFailure failure;
  failure.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
  failure.requested_mb = 2048;
  failure.phase = "backward";
  failure.path = "blocks.3";
  failure.kept_for_backward = {{"blocks.0", 40, 4}, {"blocks.1", 40, 4}, {"blocks.3", 20, 2}};
  failure.live = LiveAtFailure(failure, TrainingState{100, 0, 200, "", "", 0, 0});
  report.out_of_memory = failure;
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(LineWith(md, "The run failed"),
                       "in the backward pass of `blocks.3`, asking for 2048 MB. `blocks.0` kept "
                       "the most for backward (40.00 of the 100.0 MB the graphs kept, as much as "
                       "`blocks.1`)."))
      << md;
  EXPECT_EQ(LineWith(md, "module instance holding the most kept for backward"),
            "| module instance holding the most kept for backward | `blocks.0` |");
  EXPECT_EQ(LineWith(md, "| optimizer_state |"), "| optimizer_state | 200.0 | 50.0% | 0 |");
  EXPECT_EQ(LineWith(md, "| `blocks.3` | 20"), "| `blocks.3` | 20.00 | 5.0% | 2 |");

  failure.path = "";
  failure.path_note = "the backward keeps its graph (retain_graph=True)";
  report.out_of_memory = failure;
  EXPECT_EQ(LineWith(ReportToMarkdown(report), "module instance running"),
            "| module instance running | the backward keeps its graph (retain_graph=True) |");
}

// --autotest after it: the fixes, each run alone, under the failure (not "Fixes tried"), each
// one's peak beside the failed run's, and the summary says which fits, without a speedup.
TEST(MarkdownWriter, AnOutOfMemorysFixesRunAloneSayWhichFits) {
  RunReport report = MinimalReport();
  OutOfMemoryFailure failure;
  failure.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
  failure.phase = "forward";
  failure.path = "blocks.3";
  failure.allocator = AllocatorAtFailure{14000, 14100, 15000, 16000, 200, {}, {}, false};
  report.out_of_memory = failure;
  FixResult fits;
  fits.recipe = "activation-checkpointing";
  fits.status = "fits";
  fits.candidate_only = true;
  fits.candidate = BenchStats{12.5, 12.0, 11.0, 14.0, 20};  // its fastest step, 11 ms, is shown
  fits.peak_memory_mb = 9000;
  FixResult again = fits;
  again.recipe = "bf16-autocast";
  again.status = "out-of-memory";
  again.candidate = BenchStats{};
  again.peak_memory_mb.reset();
  again.detail = "ran out of memory again in the forward pass of blocks.3";
  report.fixes = {again, fits};

  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(LineWith(md, "The run failed"),
                       "Run alone under the same limits, `activation-checkpointing` fits (peak "
                       "9000 MB, 11.00 ms a step); no speedup is measured: the run without it does "
                       "not fit."))
      << md;
  const std::size_t section = md.find("### The fixes, each run alone");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_LT(md.find("## Out of memory"), section);
  EXPECT_EQ(LineWith(md, "| **`activation-checkpointing`**"),
            "| **`activation-checkpointing`** | **fits** | **11.00** | **15000 \u2192 9000** |");
  EXPECT_EQ(LineWith(md, "| `bf16-autocast`"),
            "| `bf16-autocast` | out-of-memory | _not measured_ | _not measured_ |");
  EXPECT_TRUE(Contains(md, "- `bf16-autocast`: ran out of memory again in the forward pass of "
                           "blocks.3\n"));
  EXPECT_TRUE(Lacks(md, "## Fixes tried"));

  report.fixes = {again};
  EXPECT_TRUE(Contains(LineWith(ReportToMarkdown(report), "The run failed"),
                       "None of the 1 fix run alone under the same limits fits."));
}

TEST(MarkdownWriter, AFindingsChangeListsTheLinesItReplacesAndWhatReplacesThem) {
  RunReport report = FilledReport();
  report.findings[0].change =
      CodeChange{"compute the attention at model.py:42 with SDPA",
                 41,
                 {"s = q @ k.mT * c", "return s.softmax(-1) @ v"},
                 {"return F.scaled_dot_product_attention(q, k, v, scale=c)"},
                 ""};
  EXPECT_TRUE(
      Contains(ReportToMarkdown(report),
               "   - What to change: compute the attention at model.py:42 with SDPA\n"
               "     - line 41, before: `s = q @ k.mT * c`\n"
               "     - line 42, before: `return s.softmax(-1) @ v`\n"
               "     - after: `return F.scaled_dot_product_attention(q, k, v, scale=c)`\n"));
}

TEST(MarkdownWriter, ACompilingFixGivesItsFirstAndLaterRoundsWarmUps) {
  RunReport report = FilledReport();
  FixResult& fix = report.fixes.at(0);
  fix.warmup_s = 31.5;
  fix.warmup_rounds = {{31.5, FxGraphCacheLookups{0, 4, 0}},
                       {8.25, FxGraphCacheLookups{4, 0, 0}},
                       {9.5, FxGraphCacheLookups{4, 0, 0}}};
  EXPECT_TRUE(
      Contains(ReportToMarkdown(report), "31.50 first, 9.50 later (from the compile cache)"));

  fix.warmup_rounds.back().fx_graph_cache->misses = 1;  // a graph compiled again
  const std::string compiled = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(compiled, "31.50 first, 9.50 later"));
  EXPECT_TRUE(Lacks(compiled, "(from the compile cache)"));
}

TEST(MarkdownWriter, SummaryNamesTheHotspotWithItsCost) {
  const std::string md = ReportToMarkdown(FilledReport());
  const std::string summary = LineWith(md, "The hot spot is");
  EXPECT_TRUE(Contains(summary, "`blocks.5.mlp` \u2192 `GatherBackward0`"));
  EXPECT_TRUE(Contains(summary, "backward pass: 4.73 ms per step, 11.5% of the step"));
  EXPECT_TRUE(Contains(summary, "takes 41.24 ms (median of 20 steps on NVIDIA H100 80GB HBM3)"));
  EXPECT_TRUE(Contains(summary, "3 levels: `blocks` \u2192 `blocks.5` \u2192 `blocks.5.mlp`."));
  EXPECT_TRUE(Contains(summary, "3 findings (1 high, 1 medium, 1 low)"));
  EXPECT_TRUE(Contains(summary, "`gather-to-index-select`, made the step 1.11\u00d7 faster"));
  EXPECT_FALSE(Contains(summary, "CUDA graph"));
}

TEST(MarkdownWriter, AModuleHoldingMoreThanItsOpIsGivenItsOwnShare) {
  RunReport report = FilledReport();
  report.hotspot->module_ms = 9.62;
  report.hotspot->module_share = 0.2333;
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(LineWith(md, "The hot spot is"),
                       "11.5% of the step. The module's forward and backward take 9.62 ms, "
                       "23.3% of the step."))
      << "the op is half of what changing the module could save";
  EXPECT_TRUE(Contains(md, "11.5% of the step; the module's forward and backward 9.62 ms/step, "
                           "23.3% of the step."));

  report.hotspot->module_ms = 5.5;
  report.hotspot->module_share = 0.1334;
  EXPECT_FALSE(Contains(ReportToMarkdown(report), "The module's forward and backward"))
      << "within five points of the op's share it would say nothing new";
}

TEST(MarkdownWriter, ALowConfidenceHotSpotSaysWhyAndWhatItCouldNotRuleOut) {
  RunReport report = FilledReport();
  report.hotspot->confidence = "low";
  report.hotspot->candidates = {"blocks.3.mlp"};
  report.doubts = {
      "level 2: the choice changed on re-run: blocks.5 in 2 of 5 steps of one window, blocks.3 "
      "in 4 of 5 steps of the next"};
  const std::string summary = LineWith(ReportToMarkdown(report), "The hot spot is");
  EXPECT_TRUE(Contains(summary,
                       "Confidence is low: level 2: the choice changed on re-run: blocks.5 in 2 "
                       "of 5 steps of one window, blocks.3 in 4 of 5 steps of the next. It could "
                       "not rule out blocks.3.mlp."))
      << summary;
  EXPECT_FALSE(Contains(LineWith(ReportToMarkdown(FilledReport()), "The hot spot is"),
                        "Confidence is low"));
}

TEST(MarkdownWriter, NoHotSpotOnABusyMachineSaysItIsUnsure) {
  RunReport report = FilledReport();
  report.hotspot.reset();
  report.doubts = {"other work kept the CPUs busy"};
  EXPECT_TRUE(Contains(LineWith(ReportToMarkdown(report), "No single hot spot was isolated"),
                       ". Confidence is low: other work kept the CPUs busy."));
}

TEST(MarkdownWriter, PhasesOfAProfiledStepFarFromTheStepTimeSaySo) {
  // Close (41.2 against 41.24 ms): the phases are given as the step's.
  EXPECT_TRUE(Contains(LineWith(ReportToMarkdown(FilledReport()), "The hot spot is"),
                       "steps on NVIDIA H100 80GB HBM3): forward 12.41 ms"));
  // A loaded machine: the phases add up to the profiled step, not to the step time.
  RunReport report = FilledReport();
  report.step.profiled_ms = 55.0;
  EXPECT_TRUE(Contains(LineWith(ReportToMarkdown(report), "The hot spot is"),
                       "steps on NVIDIA H100 80GB HBM3); profiled, a step took 55.00 ms on "
                       "average: forward 12.41 ms"));
}

// A DataLoader's waits in bursts: most steps wait for nothing, the median with them.
TEST(MarkdownWriter, StepsFarLongerThanMostGiveTheMeanBesideTheMedian) {
  RunReport report = FilledReport();
  report.step.mean_ms = 80.0;
  EXPECT_TRUE(Contains(LineWith(ReportToMarkdown(report), "The hot spot is"),
                       "HBM3); 80.00 ms on average, some steps far longer than most: forward"));
  report.step.mean_ms = 45.0;  // within a quarter of the median: the median alone
  EXPECT_FALSE(Contains(LineWith(ReportToMarkdown(report), "The hot spot is"), "on average"));
}

TEST(MarkdownWriter, SummaryGivesAGraphedStepsTimeBesideTheEagerOne) {
  RunReport report = FilledReport();
  report.run.cuda_graphs = true;
  report.step.graphed_median_ms = 7.5;
  const std::string summary = LineWith(ReportToMarkdown(report), "The hot spot is");
  EXPECT_TRUE(Contains(summary, "takes 41.24 ms (median of 20 steps"));
  EXPECT_TRUE(Contains(summary,
                       "Replayed as a CUDA graph, as the workload runs it, it takes 7.50 ms; the "
                       "rest of this report profiles the step run eagerly."));
}

// A script whose loss, computed outside the model, a rule found to be the costliest thing to fix:
// its own part of the step, its lines, and the first sentence of the report.
RunReport ReportWithALoss() {
  RunReport report = FilledReport();
  report.run.mode = Door::kScript;
  report.step.loss_ms = 9.0;
  SourceLine loop;
  loop.source = SourceLocation{"/home/u/train.py", 21, "pos = dist[i][labels == labels[i]].max()"};
  loop.runs = 128;
  loop.ops = 640;
  loop.op_us = 3.1;
  loop.ms = 12.4;
  loop.share = 0.3;
  report.loss = LossCost{9.0, 11.0, 0.485, {loop}};
  Finding finding;
  finding.rule = "costly-loss";
  finding.severity = Severity::kHigh;
  finding.message = "The loss is a Python loop.";
  finding.evidence = "the loss: 9.0 ms";
  finding.expected_gain_ms = 18.0;
  finding.source = loop.source;
  report.findings.push_back(finding);
  RankFindings(report.findings);  // as the report step does: its 18 ms lead the gather's 4.1
  return report;
}

TEST(MarkdownWriter, AScriptsLossIsItsOwnPartWithItsLines) {
  const std::string md = ReportToMarkdown(ReportWithALoss());
  EXPECT_EQ(LineWith(md, "| loss"),
            "| loss (from the model's forward to backward()) | 9.00 | 21.8% |");
  EXPECT_TRUE(Contains(md, "\n## The loss\n\nFrom the model's forward returning to backward(), "
                           "the script's own code (its loss, metrics, logging) ran 9.00 ms a "
                           "step, and the backward of its ops 11.00 ms: 48.5% of the step."));
  EXPECT_EQ(LineWith(md, "| `/home/u/train.py:21`"),
            "| `/home/u/train.py:21` | `pos = dist[i][labels == labels[i]].max()` | 128 | 640 | "
            "3.10 | 12.40 | 30.0% |");
  EXPECT_TRUE(Lacks(ReportToMarkdown(FilledReport()), "## The loss")) << "a model's has none";
}

TEST(MarkdownWriter, TheFirstSentenceNamesTheLossWhereItIsTheBiggestAvoidableCost) {
  const std::string md = ReportToMarkdown(ReportWithALoss());
  EXPECT_TRUE(Contains(md, "`\n\nThe biggest avoidable cost is the loss, computed outside the "
                           "model: 48.5% of the step (9.00 ms from the forward's return to "
                           "backward(), 11.00 ms in the backward of its ops), 30.0% at "
                           "`train.py:21` (`pos = dist[i][labels == labels[i]].max()`). A "
                           "training step of"));

  RunReport outranked = ReportWithALoss();
  for (Finding& finding : outranked.findings) {
    if (finding.rule == "costly-loss") finding.severity = Severity::kMedium;
  }
  RankFindings(outranked.findings);  // the gather's high finding comes first
  EXPECT_TRUE(Lacks(ReportToMarkdown(outranked), "The biggest avoidable cost"));
}

TEST(MarkdownWriter, TheFirstSentenceNamesAPythonLoopWhereItIsTheBiggestAvoidableCost) {
  RunReport report = FilledReport();
  report.run.mode = Door::kScript;
  SourceLine loop;
  loop.source = SourceLocation{"/home/u/train.py", 29, "row.append(x[b, s:s + 3].mean(0))"};
  loop.runs = 768;
  loop.ops = 4608;
  loop.op_us = 3.4;
  loop.runs_per_call = 768;
  loop.ops_per_call = 4608;
  loop.ms = 17.5;
  loop.share = 0.42;
  report.hotspot->lines = {loop};
  Finding finding;
  finding.rule = "python-loop";
  finding.severity = Severity::kHigh;
  finding.path = "blocks.5.mlp";
  finding.message = "A Python loop.";
  finding.evidence = "train.py:29";
  finding.expected_gain_ms = 15.8;
  finding.source = loop.source;
  report.findings.push_back(finding);
  RankFindings(report.findings);  // as the report step does: its 15.8 ms lead the gather's 4.1
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(md, "`\n\nThe biggest avoidable cost is a Python loop in "
                           "`blocks.5.mlp`'s forward: `train.py:29` (`row.append(x[b, s:s + "
                           "3].mean(0))`) takes 42.0% of the step, 4608 small ops a step. A "
                           "training step of"));
  EXPECT_EQ(LineWith(md, "| `/home/u/train.py:29`"),
            "| `/home/u/train.py:29` | `row.append(x[b, s:s + 3].mean(0))` | 768 | 4608 | 3.40 | "
            "17.50 | 42.0% |");
}

// python-loop's finding for a loop whose time is one costly op among small ones names the op
// (bench/user_trial/seq_autoencoder.py:70): the sentence says which, not "small ops".
TEST(MarkdownWriter, TheFirstSentenceNamesTheCostlyOpALoopRepeats) {
  RunReport report = FilledReport();
  report.run.mode = Door::kScript;
  SourceLine loop;
  loop.source = SourceLocation{"/home/u/seq.py", 70, "gx = (inputs @ w.t() + b)[:, t]"};
  loop.runs = 48;
  loop.ops = 240;
  loop.op_us = 375;
  loop.op_kinds = {{"aten::matmul", 48, 1703, 0.91}, {"aten::add", 48, 162, 0.09}};
  loop.runs_per_call = 48;
  loop.ops_per_call = 240;
  loop.ms = 28.9;
  loop.share = 0.61;
  report.hotspot->lines = {loop};
  Finding finding;
  finding.rule = "python-loop";
  finding.severity = Severity::kHigh;
  finding.path = "decoder";
  finding.op = "aten::matmul";
  finding.message = "A loop.";
  finding.evidence = "seq.py:70";
  finding.expected_gain_ms = 25.7;
  finding.source = loop.source;
  report.findings.push_back(finding);
  RankFindings(report.findings);
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(md, "`\n\nThe biggest avoidable cost is a loop in `decoder`'s forward: "
                           "`seq.py:70` (`gx = (inputs @ w.t() + b)[:, t]`) takes 61.0% of the "
                           "step, repeating `aten::matmul` (91.0% of its ops' time) among 240 ops "
                           "a step. A training step of"))
      << md.substr(0, 600);
}

TEST(MarkdownWriter, TheFirstSentenceNamesABroadcastTemporaryWhereItIsTheBiggestAvoidableCost) {
  RunReport report = FilledReport();
  report.run.mode = Door::kScript;
  report.broadcasts = {
      {"pool", "aten::sub", 2097152, 32768, {"aten::pow", "aten::sum"}, 10.0, 0.243}};
  Finding finding;
  finding.rule = "broadcast-temporary";
  finding.severity = Severity::kHigh;
  finding.path = "pool";
  finding.op = "aten::sub";
  finding.message = "A broadcast temporary.";
  finding.evidence = "aten::sub -> aten::pow -> aten::sum";
  finding.expected_gain_ms = 9.8;
  finding.source = SourceLocation{"/home/u/train.py", 44,
                                  "d = (z.unsqueeze(2) - z.unsqueeze(1)).pow(2).sum(-1)"};
  report.findings.push_back(finding);
  RankFindings(report.findings);
  EXPECT_TRUE(Contains(ReportToMarkdown(report),
                       "`\n\nThe biggest avoidable cost is a broadcast temporary in `pool`'s "
                       "forward, `train.py:44` (`d = (z.unsqueeze(2) - z.unsqueeze(1)).pow(2)."
                       "sum(-1)`): `aten::sub` writes 64x the elements of its largest input, and "
                       "with the ops that read it takes 24.3% of the step. A training step of"));
}

TEST(MarkdownWriter, StepTableHasTimesAndShares) {
  const std::string md = ReportToMarkdown(FilledReport());
  // Shares of the profiled step whose phases they are: they add up to 100 %.
  EXPECT_EQ(LineWith(md, "| forward |"), "| forward | 12.41 | 30.1% |");
  EXPECT_EQ(LineWith(md, "| backward |"), "| backward | 25.03 | 60.8% |");
  EXPECT_EQ(LineWith(md, "| optimizer |"), "| optimizer | 2.61 | 6.3% |");
  EXPECT_EQ(LineWith(md, "| rest |"), "| rest | 1.15 | 2.8% |");
  EXPECT_EQ(LineWith(md, "profiled step"),
            "| profiled step (the window's mean) | 41.20 | 100.0% |");
  EXPECT_EQ(LineWith(md, "whole step"),
            "| **whole step (median, unprofiled, CUDA events)** | **41.24** |  |")
      << "how the steps were timed";

  RunReport traced = FilledReport();
  traced.step.timing = StepTiming::kProfilerTrace;
  EXPECT_EQ(LineWith(ReportToMarkdown(traced), "whole step"),
            "| **whole step (median, profiled, the trace's step spans)** | **41.24** |  |")
      << "a trace's steps were all profiled";
  EXPECT_TRUE(
      Contains(md, "| part of the step | ms/step | share of step |\n| --- | ---: | ---: |"));
  EXPECT_TRUE(Lacks(md, "evaluation between steps")) << "a row only where a script evaluated";

  RunReport evaluated = FilledReport();
  evaluated.step.evaluation_ms = 1.0;
  evaluated.step.rest_ms = 0.15;
  const std::string with_evaluation = ReportToMarkdown(evaluated);
  EXPECT_EQ(LineWith(with_evaluation, "| evaluation between steps"),
            "| evaluation between steps (the model without gradients) | 1.00 | 2.4% |");
  EXPECT_EQ(LineWith(with_evaluation, "| rest |"), "| rest | 0.150 | 0.4% |");
  EXPECT_TRUE(Contains(LineWith(with_evaluation, "The hot spot is"),
                       "optimizer 2.61 ms, and 1.00 ms of evaluation between steps."));
}

TEST(MarkdownWriter, BisectionMarksTheChosenRowAndGivesTheReason) {
  const std::string md = ReportToMarkdown(FilledReport());
  const std::string chosen = LineWith(md, "\u25b6 chosen");
  EXPECT_TRUE(Contains(chosen, "**`blocks`**"));
  EXPECT_TRUE(Contains(chosen, "**91.7%**"));
  EXPECT_TRUE(Contains(md,
                       "Chose `blocks.5`: blocks.5 costs 2.8x its siblings. Measured in the "
                       "previous level's window."));
  EXPECT_TRUE(Lacks(LineWith(md, "`blocks.5.attn`"), "**"));
}

TEST(MarkdownWriter, HotspotShowsSourceAndTopOps) {
  const std::string md = ReportToMarkdown(FilledReport());
  EXPECT_TRUE(Contains(md,
                       "Source: `code/__torch__/timm/layers/mlp.py:42`: "
                       "`x = torch.gather(x, 1, index)`"));
  EXPECT_TRUE(Contains(md, "| `AddmmBackward0` | backward | 2 | 0.212 | 0 | 0.200 |"));
  // A backward node comes with the forward op that made it, and that op's own time.
  EXPECT_TRUE(Contains(md, "`blocks.5.mlp` \u2192 `GatherBackward0` (made by `aten::gather`, "
                           "itself 0.118 ms per step), backward pass"));
}

// Levels taken from a compiled model's kernel provenance: the hot spot's kernels have no calls or
// host time of their own, so they get a table of their own, and its line was not read, for a
// reason of its own (not "no line of your code ran this op").
TEST(MarkdownWriter, AHotSpotFoundByProvenanceListsItsKernelsAndSaysWhyNoLineWasRead) {
  RunReport report = FilledReport();
  report.levels.back().measured_by = LevelMeasure::kProvenance;
  report.hotspot->source.reset();
  report.hotspot->op = "aten::scatter_reduce_";
  OpTime scatter;
  scatter.name = "aten::scatter_reduce_";
  scatter.phase = "backward";
  scatter.gpu_ms = 4.61;
  report.hotspot->top_ops = {scatter};
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(md, "Top kernels of `blocks.5.mlp`:"));
  EXPECT_TRUE(Contains(md, "| `aten::scatter_reduce_` | backward | 4.61 |"));
  EXPECT_TRUE(Contains(md, "| kernel | phase | GPU ms/step |"));
  EXPECT_TRUE(Contains(md, "Source: Not read: the levels inside the compiled model came from "
                           "inductor's kernel provenance"));
}

// A script whose hot op ran at two lines: each with its part of the op's time, the op that made
// it where that is not the hot spot's forward op.
TEST(MarkdownWriter, AHotOpRunAtSeveralLinesShowsEachLinesPart) {
  RunReport report = FilledReport();
  report.run.mode = Door::kScript;
  report.hotspot->op = "MulBackward0";
  report.hotspot->forward_op = "aten::mul";
  report.hotspot->source = SourceLocation{"/home/u/train.py", 40, "pairs = h * self.rel_pos"};
  report.hotspot->op_lines = {
      {*report.hotspot->source, "aten::mul", 1, 4.2, 0.888},
      {{"/home/u/train.py", 42, "h = self.dropout(self.proj(h))"}, "aten::dropout", 1, 0.531,
       0.112}};
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(md, "Source: `/home/u/train.py:40`: `pairs = h * self.rel_pos`\n\n"
                           "`MulBackward0` ran at 2 lines of your code, the source above the "
                           "costliest: `/home/u/train.py:40` 4.20 ms per step, 88.8% of it; "
                           "`/home/u/train.py:42` (by `aten::dropout`) 0.531 ms per step, 11.2% "
                           "of it.\n\n"))
      << md;
  report.hotspot->op_lines.pop_back();
  EXPECT_TRUE(Lacks(ReportToMarkdown(report), "lines of your code")) << "one line: the source";
}

TEST(MarkdownWriter, AnOpThatTookLongerThanTheHotSpotsOpForItsPageFaultsIsExplained) {
  const std::string md = ReportToMarkdown(PageFaultReport());
  EXPECT_TRUE(Contains(md, "| op | phase | calls/step | ms/step | self ms/step | of which fresh "
                           "pages |"));
  EXPECT_TRUE(Contains(md, "| `ReluBackward0` | backward | 1 | 1.20 | 1.20 | 0.900 |"));
  EXPECT_TRUE(Contains(md, "Ops rank by their time less first touches of fresh memory pages: "
                           "`ReluBackward0` (backward) took 1.20 ms a step, 0.900 ms of it page "
                           "faults."));
  EXPECT_TRUE(Lacks(ReportToMarkdown(FilledReport()), "fresh pages"))
      << "a GPU run counts none";
}

TEST(MarkdownWriter, FindingsAreListedInTheReportsOrder) {
  RunReport report = FilledReport();
  const std::string md = ReportToMarkdown(report);
  const auto high = md.find("1. **high** `gather-backward-scatter`");
  const auto medium = md.find("2. **medium** `host-sync-item`");
  const auto low = md.find("3. **low** `tiny-kernels`");
  ASSERT_NE(high, std::string::npos);
  ASSERT_NE(medium, std::string::npos);
  ASSERT_NE(low, std::string::npos);
  EXPECT_LT(high, medium);
  EXPECT_LT(medium, low);
  EXPECT_TRUE(Contains(md, "   - Expected gain: 4.10 ms/step\n"));
  EXPECT_TRUE(Contains(md,
                       "   - Recipe: `gather-to-index-select`, measured verified: 1.11\u00d7 "
                       "faster (95% interval 1.09\u00d7\u20131.13\u00d7, 4 rounds)\n"));

  // After the autotest a measured fix can lead a more severe finding: the writer does not undo
  // the engine's order (LeadWithMeasuredFixes).
  std::swap(report.findings[0], report.findings[2]);
  const std::string reordered = ReportToMarkdown(report);
  EXPECT_LT(reordered.find("1. **low** `tiny-kernels`"),
            reordered.find("3. **high** `gather-backward-scatter`"));
}

TEST(MarkdownWriter, FixesTableSaysNotMeasuredForAFixThatNeverRan) {
  const std::string md = ReportToMarkdown(FilledReport());
  const std::string failed = LineWith(md, "| `drop-item-sync` |");
  EXPECT_TRUE(Contains(failed, "| failed |"));
  EXPECT_TRUE(
      Contains(failed, "| 40.40 min (40.40\u201344.00) | _not measured_ | _not measured_ |"));
  EXPECT_TRUE(Contains(LineWith(md, "| **`gather-to-index-select`** |"),
                       "| **1.11\u00d7 (95% interval 1.09\u00d7\u20131.13\u00d7, 4 rounds)** |"));
  EXPECT_TRUE(Contains(md,
                       "- `drop-item-sync`: RuntimeError: the rewritten graph does not "
                       "type-check\n"));
}

TEST(MarkdownWriter, GpuEstimateThatWasNotMadeSaysSo) {
  const std::string md = ReportToMarkdown(FilledReport());
  EXPECT_EQ(LineWith(md, "SM efficiency"), "| SM efficiency (estimated) | _not measured_ |");
  EXPECT_EQ(LineWith(md, "achieved occupancy"), "| achieved occupancy (estimated) | 61.0% |");
  EXPECT_TRUE(
      Contains(LineWith(md, "aten::_local_scalar_dense"), "| (outside instrumented modules) |"));
  EXPECT_TRUE(Contains(LineWith(md, "aten::to"), "| 73.50 MiB |"));
}

TEST(MarkdownWriter, SaysWhatWasMeasuredOnWhat) {
  const std::string md = ReportToMarkdown(FilledReport());
  EXPECT_EQ(LineWith(md, "| device |"), "| device | cuda (NVIDIA H100 80GB HBM3) |");
  EXPECT_EQ(LineWith(md, "| LibTorch |"), "| LibTorch | 2.5.1 |");
  EXPECT_EQ(LineWith(md, "| profiled windows |"),
            "| profiled windows | 4 (baseline included; 1 to name the modules of sync and copy "
            "sites) |");
  EXPECT_EQ(LineWith(md, "| wall time |"), "| wall time | 83.3 s (model load included) |");
  EXPECT_TRUE(Contains(md, "405 of 412 backward ops"));
  EXPECT_TRUE(Contains(md, "- CUPTI dropped 12 activity records in window 2\n"));
}

TEST(MarkdownWriter, SaysWhichWindowsABusyMachineAskedFor) {
  RunReport report = FilledReport();
  report.run.windows = 6;
  report.run.repeated_windows = 1;
  report.run.look_ahead_windows = 1;
  EXPECT_EQ(LineWith(ReportToMarkdown(report), "| profiled windows |"),
            "| profiled windows | 6 (baseline included; 1 to name the modules of sync and copy "
            "sites; 1 measured again where a window's steps did not back its choice; 1 to look "
            "into a hottest child the descent did not enter) |");
}

TEST(MarkdownWriter, MinimalReportLeavesOutWhatWasNotMeasured) {
  const std::string md = ReportToMarkdown(MinimalReport());
  EXPECT_TRUE(Contains(md, "Descent stopped here: no child holds more than half of the step."));
  EXPECT_TRUE(Contains(md,
                       "No single hot spot was isolated: no child holds more than half of "
                       "the step."));
  EXPECT_TRUE(Contains(md, "The rules raised no findings."));
  EXPECT_TRUE(Lacks(md, "## GPU"));
  EXPECT_TRUE(Lacks(md, "## Fixes tried"));
  EXPECT_TRUE(Lacks(md, "GPU ms"));
  EXPECT_EQ(LineWith(md, "| GPU probe |"), "| GPU probe | absent (no kernel times) |");
  EXPECT_EQ(LineWith(md, "| device |"), "| device | cpu |");
}

TEST(MarkdownWriter, UntrustedTextCannotInjectHtmlOrBreakTables) {
  RunReport report = FilledReport();
  report.levels[0].candidates[1].path = "evil|<script>alert(1)</script>";
  report.findings[1].message = "see <img src=x onerror=alert(1)> | now";
  const std::string md = ReportToMarkdown(report);
  // Markdown renders no HTML inside a code span, so the path may keep its brackets there, and
  // only there.
  const std::string as_code = "`evil\\|<script>alert(1)</script>`";
  EXPECT_GT(Occurrences(md, as_code), 0u);
  EXPECT_EQ(Occurrences(md, "<script>"), Occurrences(md, as_code));
  EXPECT_EQ(Occurrences(md, "<img"), Occurrences(md, "\\<img"));
  // In a table, the pipe stays inside its cell: every row of that table keeps seven cells.
  const std::string row = LineWith(md, "evil");
  std::string unescaped_pipes = row;
  for (std::size_t at = 0; (at = unescaped_pipes.find("\\|", at)) != std::string::npos;) {
    unescaped_pipes.erase(at, 2);
  }
  EXPECT_EQ(std::count(unescaped_pipes.begin(), unescaped_pipes.end(), '|'), 8);
  EXPECT_TRUE(Contains(md, "see \\<img src=x onerror=alert(1)\\> \\| now"));
}

// An escape sequence in a rule's message retitled and cleared the terminal of whoever viewed the
// report with cat; NUL and invalid UTF-8 landed in the file.
TEST(MarkdownWriter, ControlCharactersAndInvalidUtf8NeverReachTheFile) {
  RunReport report = FilledReport();
  report.findings[0].message = std::string("\x1b]0;pwned\x07\x1b[2J\rspoof \xff\xfe ok\0end", 30);
  report.hotspot->path = "blocks.\x1b[31m3";
  report.data_quality.push_back("\xc2\x9b" "31m C1 control");
  const std::string md = ReportToMarkdown(report);
  for (const char* raw : {"\x1b", "\x07", "\r", "\xff", "\xc2\x9b"}) {
    EXPECT_TRUE(Lacks(md, raw)) << static_cast<int>(static_cast<unsigned char>(raw[0]));
  }
  EXPECT_EQ(md.find('\0'), std::string::npos);
  EXPECT_TRUE(Contains(md, "0;pwned"));
  EXPECT_TRUE(Contains(md, "`blocks.\\x1b[31m3`")) << "code spans show the escape as text";
  EXPECT_TRUE(Contains(md, "\xef\xbf\xbd")) << "invalid bytes become U+FFFD";
}

// A `|` in a module path showed as `\|` in the prose: only table cells need the escape.
TEST(MarkdownWriter, APipeIsEscapedInTablesOnly) {
  RunReport report = FilledReport();
  report.hotspot->path = "blocks|3";
  report.levels[0].candidates[1].path = "blocks|3";
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(LineWith(md, "The hot spot is"), "`blocks|3`"));
  EXPECT_TRUE(Contains(md, "Top ops of `blocks|3`"));
  EXPECT_TRUE(Contains(LineWith(md, "| `blocks\\|3` |"), "|"));
}

TEST(MarkdownWriter, StepBreakdownShowsTheWaitForTheInputBatch) {
  RunReport report = FilledReport();
  report.data = DataWait{10.31, 2, false, std::nullopt};
  const std::string md = ReportToMarkdown(report);
  EXPECT_EQ(LineWith(md, "waiting for the input batch"),
            "| waiting for the input batch | 10.31 | 25.0% |");
  EXPECT_EQ(LineWith(ReportToMarkdown(FilledReport()), "waiting for the input batch"), "")
      << "no row without an input stage";
}

// The data phase of a step whose DataLoader workers keep up and are mostly idle is what the main
// process does from the optimizer step to the next forward, not a wait (the data-loader-stall rule
// says so); workers that fall behind the step make it a wait again.
TEST(MarkdownWriter, StepBreakdownNamesTheMainProcesssOwnWorkWhereTheWorkersKeepUp) {
  RunReport report = testing::IdleWorkersReport();
  std::string md = ReportToMarkdown(report);
  EXPECT_EQ(LineWith(md, "| the main process's own work"),
            "| the main process's own work between the optimizer step and the next forward (the "
            "input batch's receipt included) | 4.10 | 10.0% |");
  EXPECT_EQ(LineWith(md, "waiting for the input batch"), "");

  report.data->stage->batch_ms = 60;  // 30 ms a batch from 2 workers, against 25.9 ms of step
  md = ReportToMarkdown(report);
  EXPECT_EQ(LineWith(md, "waiting for the input batch"),
            "| waiting for the input batch | 4.10 | 10.0% |");
}

TEST(MarkdownWriter, TheInputStageNamesEachPieceWhereItRunsAndItsShare) {
  RunReport report = FilledReport();
  report.data = DataWait{10.31, 4, false, std::nullopt};
  InputStageProfile stage;
  stage.batch_ms = 9.0;
  stage.batches = 12;
  stage.output_shape = {8, 1, 64, 64};
  stage.output_dtype = "float32";
  stage.cores = 16;
  stage.worker_busy_share = 0.97;
  stage.pieces = {{"random_dilation", "transform", SourceLocation{"model.py", 30, ""}, 6.3, 0.7,
                   {8, 1, 256, 256}, {8, 1, 256, 256}, "float32", true}};
  report.data->stage = stage;
  const std::string md = ReportToMarkdown(report);
  EXPECT_EQ(LineWith(md, "One worker prepared"),
            "One worker prepared a batch in 9.00 ms (median of 12 batches; it makes "
            "8\u00d71\u00d764\u00d764 `float32`). The 4 workers were busy 97.0% of the measured "
            "window, on 16 cores.");
  EXPECT_EQ(LineWith(md, "| `random_dilation` |"),
            "| `random_dilation` | transform | `model.py:30` | 6.30 | 70.0% | "
            "8\u00d71\u00d7256\u00d7256 (only 0 and 1) | `float32` |");
  EXPECT_EQ(LineWith(ReportToMarkdown(FilledReport()), "One worker prepared"), "");

  report.data->workers = 0;
  report.data->stage->worker_busy_share.reset();
  EXPECT_EQ(LineWith(ReportToMarkdown(report), "The step prepared"),
            "The step prepared each batch itself (0 workers) in 9.00 ms (median of 12 batches; it "
            "makes 8\u00d71\u00d764\u00d764 `float32`), on 16 cores.");
}

TEST(MarkdownWriter, ASnapshotHasAMemorySectionAndNoStep) {
  const std::string md = ReportToMarkdown(SnapshotReport());
  EXPECT_TRUE(Lacks(md, "## Step breakdown"));
  EXPECT_TRUE(Lacks(md, "### Device memory"));
  EXPECT_TRUE(Contains(md, "The allocator's history in `runs/snapshot.pickle` (cuda:0, 52000 "
                           "events) peaks at "));
  EXPECT_TRUE(Contains(md, " allocated in the backward pass, with 3584 MB reserved. 66.7% of it "
                           "was allocated in a forward pass. The module instance holding the "
                           "most is `blocks.1`. 1 allocation failed: out of memory."));
  EXPECT_TRUE(Contains(md, "## Memory\n"));
  EXPECT_TRUE(Contains(md, "| module instance holding the most | `blocks.1` |"));
  EXPECT_TRUE(Contains(md, "| reserved but not allocated then, MB | 511.5 |"));
  EXPECT_TRUE(Contains(md, "| `/home/me/model.py:42 in forward` | 1536 | 50.0% | 60 |"));
  EXPECT_TRUE(Contains(md, "| `blocks.0` | _not measured_ | 900.0 | 12.00 |"));
  EXPECT_TRUE(Contains(md, "### Out of memory"));
  EXPECT_TRUE(Contains(md, "| snapshot | `runs/snapshot.pickle` |"));
}

TEST(MarkdownWriter, ABisectionsMemoryTellsItsStepPhaseByPhaseAndItsTiesAndGrowthLine) {
  const std::string markdown = ReportToMarkdown(testing::BisectionMemoryReport());
  EXPECT_TRUE(Contains(markdown, "### Live memory over the step of the peak"));
  // The forward's highest is 20 MB at 4 ms; the backward's the peak, activations most of it.
  EXPECT_TRUE(Contains(markdown, "| forward | 0 | 5.00 | 20.00 | activations (20.00 MB) |"));
  EXPECT_TRUE(Contains(markdown, "| backward | 5.00 | 9.00 | 30.00 | activations (20.00 MB) |"));
  EXPECT_TRUE(Contains(markdown, "| as much held by (the holder is first of them by name) | "
                                 "blocks.1.mlp |"));
  EXPECT_TRUE(Contains(markdown, "`train.py:87 (kept.append(out))`"));
}

}  // namespace
}  // namespace advisor
