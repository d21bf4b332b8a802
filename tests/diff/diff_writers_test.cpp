#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/diff/diff_html.h"
#include "engine/diff/diff_json.h"
#include "engine/diff/diff_markdown.h"
#include "engine/diff/report_diff.h"
#include "tests/diff/diff_reports.h"

namespace advisor {
namespace {

using nlohmann::json;

ReportDiff SampleDiff() {
  RunReport after = testing::AfterReport();
  // A module path from an untrusted report: markup and a pipe must stay text.
  after.modules.back().path = "head<script>|x";
  ReportDiff diff = DiffReports(testing::BeforeReport(), after);
  diff.before = "runs/before";
  diff.after = "runs/after/report.json";
  return diff;
}

TEST(DiffJson, HoldsTheSplitsAndWhatTheyLeave) {
  const json out = json::parse(DiffToJsonText(SampleDiff()));
  EXPECT_EQ(out.at("schema_version"), 1);
  EXPECT_DOUBLE_EQ(out.at("step_delta_ms").get<double>(), -30);
  EXPECT_EQ(out.at("step").at("verdict"), "faster");
  double phases = 0;
  for (const json& phase : out.at("phases")) phases += phase.at("delta_ms").get<double>();
  EXPECT_NEAR(phases + out.at("not_attributed_ms").get<double>(), -30, 1e-9);
  EXPECT_EQ(out.at("phases").at(0).at("phase"), "data");
  EXPECT_TRUE(out.at("phases").at(0).at("before_ms").is_null());
  const json& top = out.at("modules").at(0);
  EXPECT_EQ(top.at("path"), "blocks.1.mlp");
  EXPECT_DOUBLE_EQ(top.at("delta_ms").get<double>(), -30);
  EXPECT_FALSE(top.at("own_time").get<bool>());
  EXPECT_EQ(out.at("ops").at(0).at("name"), "GatherBackward0");
  EXPECT_TRUE(out.at("ops").at(0).at("after_ms").is_null());
  EXPECT_EQ(out.at("findings").size(), 3u);
  EXPECT_EQ(out.at("fixes").at(0).at("after_status"), nullptr);
  // The forward and backward lost all 30 ms of the step's change: the module table's.
  EXPECT_EQ(out.at("modules_time"), "host");
  EXPECT_NEAR(out.at("modules_explained_share").get<double>(), 1, 1e-9);
}

TEST(DiffMarkdown, ShowsEachSplitAndEscapesReportText) {
  const std::string md = DiffToMarkdown(SampleDiff());
  for (const char* section : {"## By phase", "## By module", "## By op", "## Findings that changed",
                              "## Fixes that changed"}) {
    EXPECT_NE(md.find(section), std::string::npos) << section;
  }
  EXPECT_NE(md.find("| not attributed |"), std::string::npos);
  EXPECT_NE(md.find("`blocks.1.mlp`"), std::string::npos);
  EXPECT_NE(md.find("faster"), std::string::npos);
  EXPECT_NE(md.find("By host time the modules explain 100.0 %"), std::string::npos);
  EXPECT_NE(md.find("resolved: `gather-backward` at `blocks.1.mlp.window`"), std::string::npos);
  EXPECT_EQ(md.find("<script>|x`"), std::string::npos);  // the pipe escaped in its cell
}

TEST(DiffHtml, DrawsTheWaterfallsAndEscapesReportText) {
  const std::string html = DiffToHtml(SampleDiff());
  EXPECT_NE(html.find("aria-label=\"the step&#39;s change by phase\""), std::string::npos);
  EXPECT_NE(html.find("by module\""), std::string::npos);
  // A change's bar starts where the previous one ended: an unfilled offset before it.
  EXPECT_NE(html.find("class=\"fill-gap\""), std::string::npos);
  EXPECT_NE(html.find("class=\"fill-verified\""), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
}

}  // namespace
}  // namespace advisor
