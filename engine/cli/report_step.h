// The end every front door's run shares: the rules on the report's facts, the report folder's
// files, and the findings on stdout.
#pragma once

#include <optional>
#include <string>

#include "engine/facts/facts.h"
#include "engine/model/run_report.h"
#include "engine/report/report_dir.h"
#include "engine/rules/rule_set.h"

namespace advisor {

// Runs the rules on the report's facts: their findings into report.findings (one per rule and
// module, fitted to the run's torch: engine/autotest/advice_fit.h), the problems of rules that
// failed into data_quality.
void ApplyRules(const RuleSet& rules, const RunEnvironment& environment, RunReport& report);

// report.md, report.html and report.json, and trace.json where the door has one, written into
// the folder as one set (ReportDir::Write).
void WriteReportFiles(ReportDir& dir, const RunReport& report,
                      const std::optional<std::string>& trace_json);

// Several ranks with a straggler: one line naming it, how late it is, and where.
void PrintStraggler(const RunReport& report);

// One line per finding, then where the report is.
void PrintFindingsAndReport(const RunReport& report, const std::string& out_dir,
                            bool with_trace);

}  // namespace advisor
