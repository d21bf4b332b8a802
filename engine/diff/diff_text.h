// What diff.md and diff.html both say, built once: the summary sentences and the tables of a
// ReportDiff, so that the two documents always show the same numbers.
#pragma once

#include <string>

#include "engine/diff/report_diff.h"
#include "engine/report/report_tables.h"
#include "engine/report/report_text.h"

namespace advisor {

// "+12.3 ms", "-0.500 ms": a change with its sign.
std::string SignedMs(double ms);

// The step's change, its interval and verdict, how much of it the phases explain, the hot spots.
std::string DiffSummary(const ReportDiff& diff, const InlineMarkup& markup);

// One line each under a table's heading: which time it compares (DiffTime) and how.
std::string PhasesTimeLine(const ReportDiff& diff);
std::string ModulesTimeLine(const ReportDiff& diff);
std::string OpsTimeLine(const ReportDiff& diff);

// "resolved: rule `gather-backward` at `blocks.3.mlp` (`GatherBackward0`): MESSAGE".
std::string FindingChangeLine(const FindingChange& change, const InlineMarkup& markup);

// Each part before, after and its change; the unattributed rest and the total last.
Table PhaseDiffTable(const ReportDiff& diff);
Table ModuleDiffTable(const ReportDiff& diff);
Table OpDiffTable(const ReportDiff& diff);
Table FixDiffTable(const ReportDiff& diff);

}  // namespace advisor
