#include "engine/cli/report_step.h"

#include <iostream>
#include <utility>
#include <vector>

#include "engine/autotest/advice_fit.h"
#include "engine/autotest/recipe.h"
#include "engine/multi_rank/unprofiled_check.h"
#include "engine/report/html_writer.h"
#include "engine/report/json_writer.h"
#include "engine/report/markdown_writer.h"
#include "engine/rules/rule_runner.h"
#include "engine/util/data_dir.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"

namespace advisor {

void ApplyRules(const RuleSet& rules, const RunEnvironment& environment, RunReport& report) {
  RuleRun run = RunRules(rules, BuildFacts(report, environment));
  report.findings = std::move(run.findings);
  for (std::string& error : run.errors) report.data_quality.push_back(std::move(error));
  // The straggler rules raise nothing on a straggler the steps outside the profiled windows do
  // not show (facts.distributed.straggler.holds_unprofiled): the report says why.
  if (report.distributed) {
    if (std::string note = UnconfirmedStragglerNote(*report.distributed); !note.empty()) {
      report.data_quality.push_back(std::move(note));
    }
  }
  // The recipes say which torch each fix needs; a missing recipes folder is the autotest's to
  // report, and leaves the findings as the rules wrote them. Fitted one recipe at a time, before
  // the findings of one rule and module merge into one with all their recipes.
  if (const std::string recipes_dir = FindDataDir("recipes"); !recipes_dir.empty()) {
    FitFindingsToTorch(report.findings, LoadRecipeDir(recipes_dir).recipes,
                       report.run.torch_version);
  }
  MergeFindings(report.findings);
  RankFindings(report.findings);  // a severity FitFindingsToTorch lowered, a merged finding's
}

void WriteReportFiles(ReportDir& dir, const RunReport& report,
                      const std::optional<std::string>& trace_json) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"report.md", ReportToMarkdown(report)}, {"report.html", ReportToHtml(report)}};
  if (trace_json) files.emplace_back("trace.json", *trace_json);
  files.emplace_back("report.json", ReportToJsonText(report));  // last: it marks the set complete
  dir.Write(files);
}

void PrintStraggler(const RunReport& report) {
  if (!report.distributed || !report.distributed->straggler) return;
  const Straggler& straggler = *report.distributed->straggler;
  if (!straggler.holds_unprofiled.value_or(true)) return;  // the data quality says why
  std::cout << Printf("straggler: rank %d, %.3f ms per step late", straggler.rank,
                      straggler.late_ms);
  if (!straggler.path.empty()) std::cout << ", in " << PrintableLine(straggler.path);
  std::cout << "\n";
}

void PrintFindingsAndReport(const RunReport& report, const std::string& out_dir,
                            bool with_trace) {
  for (const Finding& finding : report.findings) {
    std::cout << "finding [" << SeverityName(finding.severity) << "] "
              << PrintableLine(finding.rule) << ": " << PrintableLine(finding.message) << "\n";
  }
  std::cout << "report: " << PrintableLine(out_dir) << "/report.md (also report.json, report.html"
            << (with_trace ? ", trace.json)\n" : ")\n");
}

}  // namespace advisor
