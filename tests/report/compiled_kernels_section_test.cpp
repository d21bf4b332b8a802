// The compiled_kernels section (a compiled model's kernel time by module instance) in report.json,
// report.md and report.html: per-step figures from the window's totals, the instances most time
// first, and the data_quality line; absent where no provenance was given.
#include "engine/report/compiled_kernels_section.h"

#include <gtest/gtest.h>

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

// Two steps of a GPU window: 40 ms of compiled kernels, 30 attributed (8 of them from a kernel
// fused across patch_drop and norm_pre, 2 from patch_drop's scatter named by its IR origins), 4
// in 3 kernels no table names, 2 in an extern call whose entry names no node, 4 in nodes no
// instance holds; the backward's 20 ms of which 12 attributed.
CompiledKernelTime TwoSteps() {
  CompiledKernelTime time;
  time.steps = 2;
  time.device = true;
  time.calls = 4;
  time.pieces = 120;
  time.unnamed = 3;
  time.nodeless = 1;
  time.compiled_ns = 40'000'000;
  time.attributed_ns = 30'000'000;
  time.shared_ns = 8'000'000;
  time.origins_ns = 2'000'000;
  time.unnamed_ns = 4'000'000;
  time.nodeless_ns = 2'000'000;
  time.backward_ns = 20'000'000;
  time.backward_attributed_ns = 12'000'000;
  time.instances = {{"patch_drop", 6'000'000, 12'000'000, 6'000'000},
                    {"norm_pre", 2'000'000, 0, 2'000'000},
                    {"blocks.0.attn.qkv", 4'000'000, 4'000'000, 0}};
  return time;
}

TEST(CompiledKernelsSection, JsonHasPerStepFiguresAndTheInstances) {
  RunReport report = MinimalReport();
  report.compiled_kernels = TwoSteps();
  const json compiled = ReportToJson(report).at("compiled_kernels");
  EXPECT_EQ(compiled.at("work"), "gpu_kernels");
  EXPECT_EQ(compiled.at("kernels"), 120);
  EXPECT_EQ(compiled.at("unnamed_kernels"), 3);
  EXPECT_DOUBLE_EQ(compiled.at("compiled_ms").get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(compiled.at("attributed_ms").get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(compiled.at("attributed_share").get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(compiled.at("shared_ms").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(compiled.at("backward_attributed_ms").get<double>(), 6.0);
  EXPECT_EQ(compiled.at("nodeless_kernels"), 1);
  EXPECT_DOUBLE_EQ(compiled.at("origins_ms").get<double>(), 1.0);
  // The parts of the compiled time add up to it.
  EXPECT_DOUBLE_EQ(compiled.at("unnamed_ms").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(compiled.at("nodeless_ms").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(compiled.at("unheld_ms").get<double>(), 2.0);
  const json& drop = compiled.at("instances").at(0);
  EXPECT_EQ(drop.at("path"), "patch_drop");
  EXPECT_DOUBLE_EQ(drop.at("forward_ms").get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(drop.at("backward_ms").get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(drop.at("share").get<double>(), 0.45);
}

TEST(CompiledKernelsSection, AbsentWhereNoProvenanceWasGiven) {
  EXPECT_TRUE(LeavesSectionOut(MinimalReport(), "compiled_kernels", "Inside the compiled model",
                               "compiled-kernels"));
}

TEST(CompiledKernelsSection, MarkdownHtmlAndDataQualitySayWhereTheTimeWent) {
  RunReport report = MinimalReport();
  report.compiled_kernels = TwoSteps();
  EXPECT_EQ(CompiledKernelsSentence(TwoSteps()),
            "The compiled graphs' 4 calls ran 120 GPU kernels for 20.00 ms per step; 75.0% of "
            "that time was attributed to module instances from inductor's kernel provenance "
            "(20.0% from kernels fused across instances, split by their nodes; 5.0% from extern "
            "calls named by their IR node's origins, which inductor's output code gives no "
            "Source Nodes comment), 60.0% of the backward graphs' 10.00 ms; unattributed: 10.0% "
            "in GPU kernels no table names (3), 5.0% in extern calls whose table entry names "
            "none of their nodes (1) and 10.0% in kernels' nodes that no instance holds.");
  EXPECT_EQ(CompiledKernelsQuality(TwoSteps(), "provenance.json"),
            "75.0% of the compiled graphs' GPU kernel time (20.00 ms per step) was attributed to "
            "module instances from inductor's kernel provenance (provenance.json), 60.0% of the "
            "backward graphs'; unattributed: 10.0% in GPU kernels no table names (3), 5.0% in "
            "extern calls whose table entry names none of their nodes (1) and 10.0% in kernels' "
            "nodes that no instance holds");
  EXPECT_TRUE(ShowsSection(report, "Inside the compiled model", "compiled-kernels"));
  EXPECT_TRUE(Contains(ReportToMarkdown(report), "| `patch_drop` | 3.00 | 6.00 | 3.00 | 45.0% |"));
}

// Everything attributed: the lines end with the attributed share.
TEST(CompiledKernelsSection, SaysNothingOfAnUnattributedPartWhereThereIsNone) {
  CompiledKernelTime time = TwoSteps();
  time.unnamed = time.nodeless = 0;
  time.unnamed_ns = time.nodeless_ns = time.origins_ns = 0;
  time.attributed_ns = time.compiled_ns;
  EXPECT_EQ(CompiledKernelsQuality(time, "provenance.json"),
            "100.0% of the compiled graphs' GPU kernel time (20.00 ms per step) was attributed to "
            "module instances from inductor's kernel provenance (provenance.json), 60.0% of the "
            "backward graphs'");
  EXPECT_EQ(CompiledKernelsSentence(time).find("unattributed"), std::string::npos);
}

// A ViT's hundred instances: the table shows the first kCompiledInstancesShown, and a line says how
// many more report.json holds and how small the largest of them is.
TEST(CompiledKernelsSection, AModelOfManyInstancesShowsTheFirstAndSaysWhereTheRestAre) {
  RunReport report = MinimalReport();
  CompiledKernelTime time = TwoSteps();
  time.instances.clear();
  for (int i = 0; i < 25; ++i) {
    time.instances.push_back({"blocks." + std::to_string(i), 1'000'000 - i * 10'000, 0, 0});
  }
  report.compiled_kernels = time;
  EXPECT_EQ(CompiledKernelsTable(time).rows.size(), kCompiledInstancesShown);
  // The 21st, blocks.20: 0.8 ms of the window's 40.
  EXPECT_EQ(CompiledInstancesLeftOut(time),
            "5 more instances, each 2.0% of the compiled time or less, are in report.json "
            "(compiled_kernels.instances).");
  const std::string md = ReportToMarkdown(report);
  EXPECT_TRUE(Contains(md, "| `blocks.19` |"));
  EXPECT_FALSE(Contains(md, "| `blocks.20` |"));
  EXPECT_TRUE(Contains(md, "5 more instances"));
  EXPECT_EQ(ReportToJson(report).at("compiled_kernels").at("instances").size(), 25u);
  EXPECT_EQ(CompiledInstancesLeftOut(TwoSteps()), "");
}

}  // namespace
}  // namespace advisor
