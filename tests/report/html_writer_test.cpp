#include "engine/report/html_writer.h"

#include <gtest/gtest.h>

#include "tests/report/sample_report.h"
#include "tests/report/text_assertions.h"

namespace advisor {
namespace {

using testing::BisectionMemoryReport;
using testing::Contains;
using testing::FilledReport;
using testing::Lacks;
using testing::MinimalReport;
using testing::Occurrences;
using testing::SnapshotReport;

TEST(HtmlWriter, IsOneSelfContainedDocument) {
  const std::string html = ReportToHtml(FilledReport());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(Contains(html, "<meta charset=\"utf-8\">"));
  EXPECT_TRUE(Contains(html, "Content-Security-Policy\" content=\"default-src 'none'"));
  EXPECT_TRUE(Contains(html, "<style>"));
  EXPECT_TRUE(Contains(html, "</html>\n"));
  for (const char* external : {"http:", "https:", "<script", "<link", "src=", "@import", "url("}) {
    EXPECT_TRUE(Lacks(html, external));
  }
}

TEST(HtmlWriter, DrawsEveryChart) {
  const std::string html = ReportToHtml(FilledReport());
  // Step breakdown, one per bisection level (3), modules, fix benchmark.
  EXPECT_EQ(Occurrences(html, "<svg class=\"chart\""), 6u);
  EXPECT_EQ(Occurrences(html, "</svg>"), 6u);
  EXPECT_TRUE(Contains(html, "aria-label=\"Step breakdown\""));
  EXPECT_TRUE(Contains(html, "class=\"fill-forward\""));
  EXPECT_TRUE(Contains(html, "class=\"fill-backward\""));
  EXPECT_TRUE(Contains(html, "class=\"fill-optimizer\""));
  EXPECT_EQ(Occurrences(html, "class=\"fill-chosen\""), 3u) << "one chosen child per level";
  EXPECT_TRUE(Contains(html, "aria-label=\"Forward and backward time per measured module\""));
  // Two benchmarked fixes have both sides; the failed one has only a baseline: 5 whiskers.
  EXPECT_EQ(Occurrences(html, "class=\"whisker\""), 5u);
}

TEST(HtmlWriter, ChartsEachRanksStepAndExposedCommunication) {
  RunReport report = FilledReport();
  DistributedSummary distributed;
  distributed.world_size = 2;
  distributed.ranks = {
      {0, "", 30.0, 8.0, 20.0, 1.0, std::nullopt, 18.0, 14.0, 12.0, 0.0, 0, 0.0, std::nullopt},
      {1, "", 30.0, 8.0, 20.0, 1.0, std::nullopt, 28.0, 4.0, 2.0, 10.0, 24, 0.0, std::nullopt}};
  Straggler straggler;
  straggler.rank = 1;
  distributed.straggler = straggler;
  report.distributed = distributed;
  const std::string html = ReportToHtml(report);
  const std::size_t chart =
      html.find("aria-label=\"Step time per rank, with the communication no compute overlaps\"");
  ASSERT_NE(chart, std::string::npos);
  EXPECT_LT(html.find("<section id=\"ranks\">"), chart);
  EXPECT_TRUE(Contains(html, "rank 1 (straggler)"));
  EXPECT_TRUE(Contains(html,
                       "rank 0: 30.00 ms step, 12.00 ms of it in collectives with nothing "
                       "computing"));
}

TEST(HtmlWriter, ARankLateInTheProfiledStepsOnlyIsNotMarkedAStraggler) {
  RunReport report = FilledReport();
  DistributedSummary distributed;
  distributed.world_size = 2;
  distributed.ranks = {{0, "", 30.0, 8.0, 20.0, 1.0, std::nullopt, 18.0, 14.0, 12.0, 0.0, 0},
                       {1, "", 30.0, 8.0, 20.0, 1.0, std::nullopt, 28.0, 4.0, 2.0, 10.0, 24}};
  Straggler straggler;
  straggler.rank = 1;
  straggler.pre_backward_excess_ms = 4.0;
  straggler.unprofiled_excess_ms = 0.1;
  straggler.holds_unprofiled = false;
  distributed.straggler = straggler;
  report.distributed = distributed;
  const std::string html = ReportToHtml(report);
  EXPECT_FALSE(Contains(html, "(straggler)"));
  EXPECT_FALSE(Contains(html, "is the straggler"));
  EXPECT_TRUE(Contains(html,
                       "in the profiled steps, but the steps timed without a profiler do "
                       "not show it: no straggler"));
}

// The chart's legend names the data phase as the breakdown's table does.
TEST(HtmlWriter, TheStepChartNamesTheMainProcesssOwnWorkWhereTheWorkersKeepUp) {
  RunReport report = testing::IdleWorkersReport();
  EXPECT_TRUE(Contains(ReportToHtml(report), ">main process before the forward</text>"));
  report.data->stage->batch_ms = 60;  // 30 ms a batch from 2 workers: slower than the step
  EXPECT_TRUE(Contains(ReportToHtml(report), ">waiting for the input batch</text>"));
}

TEST(HtmlWriter, ChartsSamplesPerSecondAgainstInputWorkers) {
  RunReport report = FilledReport();
  FixResult& fix = report.fixes.front();
  fix.worker_series = {{2, 300.0, 2.6, 106.7, "verified"},
                       {8, 127.0, 6.2, 252.0, "verified"},
                       {16, 0.0, 0.0, std::nullopt, "failed"}};
  fix.knee_workers = 8;
  const std::string html = ReportToHtml(report);
  EXPECT_TRUE(Contains(html, "aria-label=\"Samples per second by input workers\""));
  EXPECT_EQ(Occurrences(html, "<svg class=\"chart\""), 7u) << "one more chart";
  EXPECT_TRUE(Contains(html, "8 workers: 127.0 ms per step, 252.0 samples/s, the knee"));
  EXPECT_FALSE(Contains(html, "16 workers:")) << "a count without a measurement has no bar";
  EXPECT_TRUE(Contains(html, "<td class=\"num\">8 (knee)</td>"));
}

TEST(HtmlWriter, ShowsTheHotspotFindingsAndFixResults) {
  const std::string html = ReportToHtml(FilledReport());
  EXPECT_TRUE(Contains(html,
                       "The hot spot is <code>blocks.<wbr>5.<wbr>mlp</code> \u2192 "
                       "<code>GatherBackward0</code>"));
  EXPECT_TRUE(Contains(html,
                       "<span class=\"where\">code/__torch__/timm/layers/mlp.py:42</span>"
                       "x = torch.gather(x, 1, index)</pre>"));
  EXPECT_LT(html.find("gather-backward-scatter"), html.find("host-sync-item"));
  EXPECT_LT(html.find("host-sync-item"), html.find("<code>tiny-kernels</code>"));
  EXPECT_TRUE(Contains(html, "<span class=\"badge verified\">verified: 1.11\u00d7 faster"));
  EXPECT_TRUE(Contains(html, "<section id=\"fixes\">"));
  EXPECT_TRUE(Contains(html, "<tr class=\"highlighted\"><td>\u25b6 chosen</td>"));
}

// The box under each finding with a line in the user's code: where, and what to put there.
TEST(HtmlWriter, EachFindingWithALineSaysWhatToChangeThere) {
  RunReport report = FilledReport();
  report.findings[0].change = CodeChange{"take the tokens at model.py:42 by row indexing",
                                         42,
                                         {"x = torch.gather(x, 1, index)"},
                                         {"x = x[rows, index]"},
                                         ""};
  report.findings[1].source = SourceLocation{"train.py", 88, "loss_value = loss.item()"};
  const std::string html = ReportToHtml(report);
  EXPECT_EQ(Occurrences(html, "<div class=\"change\">"), 2u)
      << "not for the finding without a line";
  EXPECT_TRUE(Contains(html,
                       "<div class=\"change\"><div class=\"change-head\">What to change</div>"
                       "<div>in <code>model.<wbr>py</code>, line 42</div>"
                       "<div class=\"label\">before</div><pre class=\"source before\">"
                       "x = torch.gather(x, 1, index)\n</pre>"
                       "<div class=\"label\">after</div><pre class=\"source after\">"
                       "x = x[rows, index]\n</pre>"
                       "<p>take the tokens at model.py:42 by row indexing</p></div>"));
  // A recipe without a code change: the line as it is, no before and after.
  EXPECT_TRUE(Contains(html,
                       "<div>in <code>train.<wbr>py</code>, line 88</div>"
                       "<pre class=\"source\">loss_value = loss.item()\n</pre></div>"));
  // A change of several lines names them all; what it cannot keep is said in its advice.
  report.findings[0].change->first_line = 12;
  report.findings[0].change->before = {"s = q @ k.mT", "s = s.masked_fill(m, -1e9)",
                                       "out = s.softmax(-1) @ v"};
  EXPECT_TRUE(Contains(ReportToHtml(report), ", lines 12\u201314</div>"));
}

TEST(HtmlWriter, SaysNotMeasuredInsteadOfZero) {
  const std::string html = ReportToHtml(MinimalReport());
  EXPECT_TRUE(Contains(html,
                       "<div class=\"name\">GPU busy</div><div class=\"big\">"
                       "<span class=\"not-measured\">not measured</span>"));
  EXPECT_TRUE(Lacks(html, "<section id=\"fixes\">"));
  EXPECT_TRUE(Lacks(html, "<section id=\"gpu\">"));
  EXPECT_TRUE(Lacks(html, "GPU ms"));
  EXPECT_TRUE(Contains(html, "No single hot spot was isolated"));
  // The never-instrumented module "act" is not charted.
  EXPECT_TRUE(Contains(html, "<title>linear ("));
  EXPECT_TRUE(Lacks(html, "<title>act ("));
}

TEST(HtmlWriter, EscapesTextFromTheModelFile) {
  RunReport report = FilledReport();
  const std::string script = "<script>alert(1)</script>";
  report.run.model = "m" + script + ".pt";
  report.levels[0].candidates[1].path = "evil\"onmouseover=\"alert(1)" + script;
  report.modules[4].path = report.levels[0].candidates[1].path;
  report.hotspot->source->text = script;
  report.hotspot->op_lines = {{{"a.py", 1, ""}, "aten::mul", 1, 1, 0.5},
                              {{script + ".py", 2, ""}, script, 1, 1, 0.5}};
  report.findings[0].message = "<img src=x onerror=alert(1)>";
  report.fixes[1].detail = "</pre>" + script;
  report.fixes[1].status = "<b>odd</b>";
  report.findings[0].recipe = report.fixes[1].recipe;
  report.data_quality.push_back(script);
  const std::string html = ReportToHtml(report);
  EXPECT_TRUE(Lacks(html, "<script"));
  EXPECT_TRUE(Lacks(html, "<img"));
  EXPECT_TRUE(Lacks(html, "\"onmouseover"));
  EXPECT_TRUE(Lacks(html, "<b>odd"));
  EXPECT_TRUE(Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_TRUE(Contains(html, "evil&quot;onmouseover=&quot;alert(1)"));
  // Escaped, then a break allowed after each dot and slash.
  EXPECT_TRUE(Contains(html,
                       "<code>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;.<wbr>py:2</code> (by "
                       "<code>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;</code>)"))
      << "the hot op's lines";
  // An unknown fix status never becomes a CSS class.
  EXPECT_TRUE(Contains(html, "<span class=\"badge info\">&lt;b&gt;odd&lt;/b&gt;"));
}

TEST(HtmlWriter, ControlCharactersAndInvalidUtf8NeverReachTheFile) {
  RunReport report = FilledReport();
  report.findings[0].message = std::string("\x1b]0;pwned\x07\x1b[2J\rspoof \xff ok\0end", 29);
  report.fixes[1].detail = "line one\nline \x1b[1mtwo";
  const std::string html = ReportToHtml(report);
  for (const char* raw : {"\x1b", "\x07", "\r", "\xff"}) EXPECT_TRUE(Lacks(html, raw));
  EXPECT_EQ(html.find('\0'), std::string::npos);
  EXPECT_TRUE(Contains(html, "\\x1b]0;pwned\\x07\\x1b[2J\\x0dspoof \xef\xbf\xbd ok\\x00end"));
  EXPECT_TRUE(Contains(html, "line one\nline \\x1b[1mtwo")) << "a <pre> keeps its lines";
}

// Module paths, op and file names break after their dots (and a path after its slashes), never
// inside a word: `overflow-wrap: anywhere` let a narrow table column shrink to one letter, and
// names and recipes wrapped letter by letter ("GaussianB lur", "torch.con v2d").
TEST(HtmlWriter, LongNamesBreakAfterTheirDotsNotInsideAWord) {
  RunReport report = FilledReport();
  report.findings[0].source->file = "/home/me/project/models/vision_transformer.py";
  const std::string html = ReportToHtml(report);
  EXPECT_TRUE(Contains(html, "<code>blocks.<wbr>5.<wbr>mlp</code>"));
  EXPECT_TRUE(Contains(html,
                       "<code>/<wbr>home/<wbr>me/<wbr>project/<wbr>models/<wbr>"
                       "vision_transformer.<wbr>py</code>"));
  EXPECT_TRUE(Contains(html, "<code>gather-to-index-select</code>")) << "a recipe stays whole";
  EXPECT_TRUE(Contains(html, "border-radius: 4px; overflow-wrap: break-word; }"))
      << "code breaks inside a word only where the word alone is wider than its line";
  const std::size_t anywhere = html.find("overflow-wrap: anywhere");
  ASSERT_NE(anywhere, std::string::npos);
  EXPECT_EQ(html.rfind("\n", anywhere), html.find("\npre.source {")) << "in code blocks only";
  EXPECT_EQ(html.find("overflow-wrap: anywhere", anywhere + 1), std::string::npos);
  EXPECT_TRUE(Lacks(html, "word-break: break-all"));
}

TEST(HtmlWriter, LongModulePathsKeepTheirTailInCharts) {
  RunReport report = MinimalReport();
  report.levels[0].candidates[0].path = "encoder.layers.23.self_attention.query_key_value.dense";
  const std::string html = ReportToHtml(report);
  EXPECT_TRUE(Contains(html, "\u202623.self_attention.query_key_value.dense</text>"));
  EXPECT_TRUE(Contains(html, "<title>encoder.layers.23.self_attention.query_key_value.dense: "));
}

TEST(HtmlWriter, ASnapshotDrawsLiveMemoryOverItsHistory) {
  RunReport report = SnapshotReport();
  report.memory->history->spans[2].label = "<b>blocks.1</b>";
  const std::string html = ReportToHtml(report);
  EXPECT_TRUE(Lacks(html, "id=\"step\""));
  EXPECT_TRUE(Contains(html, "<div class=\"name\">Peak allocated</div>"));
  EXPECT_TRUE(Contains(html, "allocator snapshot \u00b7 cuda:0"));
  EXPECT_EQ(Occurrences(html, "<svg class=\"chart memory-chart\""), 1u);
  EXPECT_EQ(Occurrences(html, "<polygon class=\"allocated\""), 1u);
  EXPECT_EQ(Occurrences(html, "<polyline class=\"reserved\""), 1u);
  EXPECT_EQ(Occurrences(html, "<circle class=\"peak\""), 1u);
  EXPECT_EQ(Occurrences(html, "<line class=\"oom\""), 1u);
  EXPECT_EQ(Occurrences(html, "class=\"fill-module\""), 2u);
  EXPECT_EQ(Occurrences(html, "<rect class=\"fill-backward\""), 2u)
      << "the legend's and the lane's";
  EXPECT_TRUE(Contains(html, "&lt;b&gt;blocks.1&lt;/b&gt;"));
  EXPECT_TRUE(Lacks(html, "<b>blocks.1"));
  EXPECT_TRUE(Contains(html, "<h3>Memory per module instance</h3>"));
}

TEST(HtmlWriter, ABisectionDrawsLiveMemoryOverThePeaksStep) {
  const std::string html = ReportToHtml(BisectionMemoryReport());
  EXPECT_EQ(Occurrences(html, "<svg class=\"chart memory-chart\""), 1u);
  EXPECT_EQ(Occurrences(html, "<polygon class=\"layer-activations\""), 1u);
  EXPECT_EQ(Occurrences(html, "<polygon class=\"layer-gradients\""), 1u);
  EXPECT_TRUE(Lacks(html, "<polyline class=\"reserved\"")) << "no allocator segments";
  EXPECT_EQ(Occurrences(html, "<circle class=\"peak\""), 1u);
  EXPECT_TRUE(Contains(html, " MB, held most by blocks.0.mlp</text>"));
  EXPECT_EQ(Occurrences(html, "<rect class=\"fill-holder\""), 2u) << "the holder's two calls";
  EXPECT_EQ(Occurrences(html, "<rect class=\"fill-module\""), 1u);
  const std::size_t chart = html.find("<svg class=\"chart memory-chart\"");
  const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  EXPECT_EQ(Occurrences(svg, "<rect class=\"fill-backward\""), 1u) << "the lane's, no legend's";
  EXPECT_TRUE(Contains(svg, ">backward</text>")) << "named in its bar";
  EXPECT_TRUE(Contains(html, "blocks.1.mlp</td>")) << "its tie beside it";
  // Stacked: the gradients' layer lies on the activations', so its top reaches the peak's dot.
  const std::size_t dot = html.find("<circle class=\"peak\" cx=\"");
  ASSERT_NE(dot, std::string::npos);
  const std::size_t cy = html.find("cy=\"", dot) + 4;
  const std::string peak_y = html.substr(cy, html.find('"', cy) - cy);
  const std::size_t gradients = html.find("<polygon class=\"layer-gradients\"");
  ASSERT_NE(gradients, std::string::npos);
  const std::string polygon = html.substr(gradients, html.find('>', gradients) - gradients);
  EXPECT_TRUE(Contains(polygon, "," + peak_y + " ")) << polygon << " lacks y " << peak_y;
}

}  // namespace
}  // namespace advisor
