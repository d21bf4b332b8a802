// Whether a report section shows in report.md and report.html, or is left out of every document,
// for the tests of the sections that are absent where their run had nothing to say.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/model/run_report.h"
#include "engine/report/html_writer.h"
#include "engine/report/json_writer.h"
#include "engine/report/markdown_writer.h"
#include "tests/report/text_assertions.h"

namespace advisor::testing {

// report.md has the section's "## HEADING", report.html its <section id="ID"> under that heading.
inline ::testing::AssertionResult ShowsSection(const RunReport& report, const std::string& heading,
                                               const std::string& html_id) {
  const ::testing::AssertionResult markdown =
      Contains(ReportToMarkdown(report), "\n## " + heading + "\n");
  if (!markdown) return markdown;
  return Contains(ReportToHtml(report), "<section id=\"" + html_id + "\"><h2>" + heading + "</h2>");
}

// report.json has no `json_key`, report.md never says `heading`, report.html has no element of id
// `html_id`.
inline ::testing::AssertionResult LeavesSectionOut(const RunReport& report,
                                                   const std::string& json_key,
                                                   const std::string& heading,
                                                   const std::string& html_id) {
  if (ReportToJson(report).contains(json_key)) {
    return ::testing::AssertionFailure() << "report.json has '" << json_key << "'";
  }
  const ::testing::AssertionResult markdown = Lacks(ReportToMarkdown(report), heading);
  if (!markdown) return markdown;
  return Lacks(ReportToHtml(report), "id=\"" + html_id + "\"");
}

}  // namespace advisor::testing
