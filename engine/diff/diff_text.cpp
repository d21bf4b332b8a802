#include "engine/diff/diff_text.h"

#include <cmath>

#include "engine/report/format.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

TableCell Text(const std::string& text) { return {text, TableCell::Style::kText}; }
TableCell Code(const std::string& text) { return {text, TableCell::Style::kCode}; }

TableCell MsOrAbsent(const std::optional<double>& ms) {
  return ms ? Text(FormatNumber(*ms)) : Text("—");
}

std::vector<TableCell> PartCells(const DeltaPart& part) {
  return {MsOrAbsent(part.before_ms), MsOrAbsent(part.after_ms), Text(SignedMs(part.delta_ms))};
}

TableRow RestRow(const std::string& label, double ms, std::size_t leading_blanks) {
  TableRow row;
  row.cells.push_back(Text(label));
  for (std::size_t i = 0; i < leading_blanks; ++i) row.cells.push_back(Text(""));
  row.cells.push_back(Text(""));
  row.cells.push_back(Text(""));
  row.cells.push_back(Text(SignedMs(ms)));
  return row;
}

}  // namespace

std::string SignedMs(double ms) {
  return (ms >= 0 ? "+" : "-") + FormatNumber(std::abs(ms)) + " ms";
}

std::string DiffSummary(const ReportDiff& diff, const InlineMarkup& markup) {
  const StepChange& step = diff.step;
  std::string text =
      markup.text(Printf("The step went from %s ms to %s ms (%s step): %s",
                         FormatNumber(step.before_ms).c_str(), FormatNumber(step.after_ms).c_str(),
                         step.statistic.c_str(), SignedMs(step.delta_ms).c_str()));
  if (step.before_ms > 0) {
    text += markup.text(Printf(" (%+.1f %%)", step.delta_ms / step.before_ms * 100));
  }
  if (step.delta_low_ms && step.delta_high_ms) {
    text += markup.text(Printf(
        ", 95 %% interval %s to %s over %d and %d steps", SignedMs(*step.delta_low_ms).c_str(),
        SignedMs(*step.delta_high_ms).c_str(), step.before_steps, step.after_steps));
  }
  if (step.verdict == "faster" || step.verdict == "slower") {
    text += markup.text(": " + step.verdict + ", beyond the steps' spread. ");
  } else if (step.verdict == "no-change") {
    text += markup.text(": no measurable change (" + step.why + "). ");
  } else {
    text += markup.text(" (" + step.why + "). ");
  }
  text += markup.text(Printf("The phases explain %.1f %% of it; %s is not attributed. ",
                             ExplainedShare(step.delta_ms, diff.not_attributed_ms) * 100,
                             SignedMs(diff.not_attributed_ms).c_str()));
  // Two ranks compare by phase only: no module, no op.
  if (!diff.modules.empty() || !diff.ops.empty()) {
    text += markup.text(Printf("By %s time the modules explain %.1f %%, the ops' %s time %.1f %%. ",
                               diff.modules_time == DiffTime::kProfiledDevice ? "device" : "host",
                               ModulesExplainedShare(diff) * 100,
                               diff.ops_time == DiffTime::kProfiledDevice ? "device" : "host self",
                               ExplainedShare(step.delta_ms, diff.ops_not_attributed_ms) * 100));
  }
  const auto hotspot = [&](const std::string& name) {
    return name.empty() ? markup.text("none isolated") : markup.code(name);
  };
  text += markup.text("Hot spot before: ") + hotspot(diff.before_hotspot) +
          markup.text("; after: ") + hotspot(diff.after_hotspot) + markup.text(".");
  return text;
}

std::string PhasesTimeLine(const ReportDiff& diff) {
  return diff.phases_time == DiffTime::kUnprofiledSteps
             ? "Each phase's mean over the unprofiled steps, on the clock that timed them (on a "
               "GPU, CUDA events): they add up to the mean step."
             : "Host time of the profiled windows' mean step, which is not the step compared.";
}

std::string ModulesTimeLine(const ReportDiff& diff) {
  return std::string(diff.modules_time == DiffTime::kProfiledDevice
                         ? "Device time (kernels and copies) per step"
                         : "Host time of the forward and backward per step, as its share of its "
                           "profiled window's step times the step compared,") +
         " in the profiled windows, at the deepest level both runs measured: a module is split "
         "into its children only where both runs timed them.";
}

std::string OpsTimeLine(const ReportDiff& diff) {
  return diff.ops_time == DiffTime::kProfiledDevice
             ? "Device time each op launched itself, per step in the profiled windows: the "
               "largest changes."
             : "Host self time per step in the profiled window, as its share of the window's step "
               "times the step compared: the largest changes.";
}

std::string FindingChangeLine(const FindingChange& change, const InlineMarkup& markup) {
  const Finding& finding = change.finding;
  std::string line =
      markup.text(change.change == "severity" ? "severity " + change.before_severity + " -> " +
                                                    SeverityName(finding.severity)
                                              : change.change);
  line += markup.text(": ") + markup.code(finding.rule);
  if (!finding.path.empty()) line += markup.text(" at ") + markup.code(finding.path);
  if (!finding.op.empty()) line += markup.text(" (") + markup.code(finding.op) + markup.text(")");
  return line + markup.text(": " + finding.message);
}

Table PhaseDiffTable(const ReportDiff& diff) {
  Table table{{"phase", "before ms", "after ms", "change"}, {false, true, true, true}, {}};
  for (const DeltaPart& phase : diff.phases) {
    if (!phase.before_ms && !phase.after_ms) continue;
    TableRow row;
    row.cells.push_back(Text(phase.name));
    for (TableCell& cell : PartCells(phase)) row.cells.push_back(std::move(cell));
    table.rows.push_back(std::move(row));
  }
  table.rows.push_back(RestRow("not attributed", diff.not_attributed_ms, 0));
  TableRow total;
  total.cells = {Text("step (" + diff.step.statistic + ")"),
                 Text(FormatNumber(diff.step.before_ms)), Text(FormatNumber(diff.step.after_ms)),
                 Text(SignedMs(diff.step.delta_ms))};
  total.highlighted = true;
  table.rows.push_back(std::move(total));
  return table;
}

Table ModuleDiffTable(const ReportDiff& diff) {
  Table table{{"module", "before ms", "after ms", "change"}, {false, true, true, true}, {}};
  for (const ModuleDelta& module : diff.modules) {
    TableRow row;
    row.cells.push_back(Code(module.part.name + (module.own_time ? " (own time)" : "")));
    for (TableCell& cell : PartCells(module.part)) row.cells.push_back(std::move(cell));
    table.rows.push_back(std::move(row));
  }
  if (diff.device_not_attributed_ms) {
    table.rows.push_back(
        RestRow("kernels and copies outside these modules", diff.modules_not_attributed_ms, 0));
    table.rows.push_back(
        RestRow("not in the device's time (idle, profiling)", *diff.device_not_attributed_ms, 0));
  } else {
    table.rows.push_back(
        RestRow("forward and backward outside these modules", diff.modules_not_attributed_ms, 0));
  }
  return table;
}

Table OpDiffTable(const ReportDiff& diff) {
  Table table{{"op", "phase", "before self ms", "after self ms", "change"},
              {false, false, true, true, true},
              {}};
  for (const OpDelta& op : diff.ops) {
    TableRow row;
    row.cells = {Code(op.part.name), Text(op.phase)};
    for (TableCell& cell : PartCells(op.part)) row.cells.push_back(std::move(cell));
    table.rows.push_back(std::move(row));
  }
  table.rows.push_back(RestRow("every other op", diff.ops_other_ms, 1));
  table.rows.push_back(RestRow("in no op", diff.ops_not_attributed_ms, 1));
  return table;
}

Table FixDiffTable(const ReportDiff& diff) {
  Table table{{"recipe", "before", "after", "speedup before", "speedup after"},
              {false, false, false, true, true},
              {}};
  const auto speedup = [](const std::optional<double>& value) {
    return value ? Text(FormatSpeedup(*value)) : Text("—");
  };
  for (const FixChange& fix : diff.fixes) {
    table.rows.push_back(
        {{Code(fix.recipe), Text(fix.before_status.empty() ? "not tried" : fix.before_status),
          Text(fix.after_status.empty() ? "not tried" : fix.after_status),
          speedup(fix.before_speedup), speedup(fix.after_speedup)}});
  }
  return table;
}

}  // namespace advisor
