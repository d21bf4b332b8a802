// The compile section (what torch.compile did in a script) in report.json, report.md and
// report.html: present with its numbers where torch compiled something, absent where it did not.
#include "engine/report/compile_section.h"

#include <gtest/gtest.h>

#include "engine/report/html_writer.h"
#include "engine/report/json_writer.h"
#include "engine/report/markdown_writer.h"
#include "tests/report/sample_report.h"
#include "tests/report/section_assertions.h"

namespace advisor {
namespace {

using nlohmann::json;
using testing::Contains;
using testing::LeavesSectionOut;
using testing::MinimalReport;
using testing::ShowsSection;

RunReport CompiledReport() {
  RunReport report = MinimalReport();
  CompileReport compile;
  compile.graphs = 3;
  compile.compilations = 4;
  compile.compile_s = 2.5;
  compile.graph_breaks = {{"Unsupported Tensor.item() call with capture_scalar_outputs=False",
                           "train.py", 27, 2, "scale = x.abs().max().item()"}};
  compile.recompiles = {
      {"forward", "train.py", 22, "tensor 'x' size mismatch at index 0. expected 4, actual 6", 1}};
  compile.recompile_limit_hits = {{"forward", "train.py", 22, 8}};
  report.compile = compile;
  return report;
}

TEST(CompileSection, JsonHasWhatTheCompilerDid) {
  const json compile = ReportToJson(CompiledReport()).at("compile");
  EXPECT_EQ(compile.at("graphs"), 3);
  EXPECT_EQ(compile.at("compilations"), 4);
  EXPECT_DOUBLE_EQ(compile.at("compile_s").get<double>(), 2.5);
  EXPECT_EQ(compile.at("graph_breaks"),
            json::parse(R"([{"reason": "Unsupported Tensor.item() call with )"
                        R"(capture_scalar_outputs=False", "file": "train.py", "line": 27, )"
                        R"j("text": "scale = x.abs().max().item()", "count": 2}])j"));
  EXPECT_EQ(compile.at("recompiles").at(0).at("guard"),
            "tensor 'x' size mismatch at index 0. expected 4, actual 6");
  EXPECT_EQ(compile.at("recompiles").at(0).at("function"), "forward");
  EXPECT_EQ(compile.at("recompile_limit_hits").at(0).at("limit"), 8);
  EXPECT_FALSE(compile.contains("cuda_graphs")) << "not read on a CPU";
}

TEST(CompileSection, AbsentWhereNothingWasCompiled) {
  EXPECT_TRUE(LeavesSectionOut(MinimalReport(), "compile", "torch.compile", "compile"));
}

TEST(CompileSection, MarkdownAndHtmlShowTheSentenceAndTable) {
  const RunReport report = CompiledReport();
  const std::string sentence =
      "torch.compile made 3 graphs in 2.5 s of compilation (dynamo's tracing and the backend's "
      "compile, as torch measured them), with 1 graph break and 1 recompilation; 1 function "
      "reached the recompile limit and ran eagerly after it.";
  EXPECT_EQ(CompileSentence(*report.compile), sentence);
  EXPECT_TRUE(ShowsSection(report, "torch.compile", "compile"));
  EXPECT_TRUE(Contains(ReportToMarkdown(report),
                       "| graph break | `train.py:27` | Unsupported Tensor.item() call with "
                       "capture_scalar_outputs=False | 2 |"));
  EXPECT_TRUE(Contains(ReportToHtml(report), "recompilation of forward"));
}

TEST(CompileSection, SaysTheMeasurementChangedTheCompilation) {
  RunReport report = CompiledReport();
  EXPECT_FALSE(ReportToJson(report).at("compile").contains("regional"));
  report.compile->regional =
      RegionalCompile{{"", "blocks.1"}, 5, 1.5, 1, {{"blocks.2", "Unsupported: graph_break()"}}};
  const json regional = ReportToJson(report).at("compile").at("regional");
  EXPECT_EQ(regional.at("levels"), json({"", "blocks.1"}));
  EXPECT_EQ(regional.at("compilations"), 5);
  EXPECT_DOUBLE_EQ(regional.at("compile_s").get<double>(), 1.5);
  EXPECT_EQ(regional.at("in_measured_steps"), 1);
  EXPECT_EQ(regional.at("eager"),
            json::array({{{"path", "blocks.2"}, {"reason", "Unsupported: graph_break()"}}}));
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(md,
                       "advisor measured inside the compiled model with regional compilation "
                       "(the model, blocks.1)"));
  EXPECT_TRUE(Contains(md, "no kernel was fused across instances"));
  EXPECT_TRUE(Contains(md, "the regions took 5 compilations and 1.5 s"));
  EXPECT_TRUE(Contains(md, "but 1 compiled again inside measured steps"));
  EXPECT_TRUE(Contains(md,
                       "blocks.2 ran eagerly: dynamo could not compile it alone "
                       "(Unsupported: graph_break())."));
}

TEST(CompileSection, CarriesTheCudaGraphsInJsonAndOneLine) {
  RunReport report = CompiledReport();
  report.compile->cuda_graphs =
      CudaGraphs{23,
                 29,
                 {{"partition_0", "forward", 22, 1, 21, 21, "static input data pointer changed."},
                  {"partition_0", "backward", 1, 1, 0, 0, ""}},
                 {{"mutated inputs (1 instances)", 2}}};
  const json graphs = ReportToJson(report).at("compile").at("cuda_graphs");
  EXPECT_EQ(graphs.at("recordings"), 23);
  EXPECT_EQ(graphs.at("step"), 29);
  EXPECT_EQ(graphs.at("functions").at(0),
            json::parse(R"({"function": "partition_0", "mode": "forward", "recordings": 22, )"
                        R"("first_step": 1, "later_steps": 21, "rerecordings": 21, )"
                        R"("rerecord_reason": "static input data pointer changed."})"));
  EXPECT_EQ(graphs.at("skipped"),
            json::array({{{"reason", "mutated inputs (1 instances)"}, {"count", 2}}}));
  const std::string sentence =
      "CUDA graphs (inductor's, as in mode=\"reduce-overhead\"): 23 captures of 2 graphs by step "
      "29; partition_0 (forward) captured again in 21 later steps (torch: static input data "
      "pointer changed.); skipped 2 times: mutated inputs (1 instances), 2 times.";
  EXPECT_EQ(CudaGraphsSentence(*report.compile->cuda_graphs), sentence);
  EXPECT_TRUE(Contains(ReportToMarkdown(report), "\n\nCUDA graphs (inductor's"));
  EXPECT_TRUE(Contains(ReportToHtml(report), "<p>CUDA graphs (inductor&#39;s"));

  report.compile->cuda_graphs = CudaGraphs{
      2,
      29,
      {{"partition_0", "forward", 1, 1, 0, 0, ""}, {"partition_0", "backward", 1, 1, 0, 0, ""}},
      {}};
  EXPECT_EQ(CudaGraphsSentence(*report.compile->cuda_graphs),
            "CUDA graphs (inductor's, as in mode=\"reduce-overhead\"): 2 captures of 2 graphs by "
            "step 29, none captured again in a later step.");
}

}  // namespace
}  // namespace advisor
