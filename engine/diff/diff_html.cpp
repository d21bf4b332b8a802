#include "engine/diff/diff_html.h"

#include <sstream>

#include "engine/diff/diff_text.h"
#include "engine/diff/waterfall_chart.h"
#include "engine/report/html_escape.h"
#include "engine/report/html_markup.h"

namespace advisor {
namespace {

// The module waterfall's bars: more would make a chart no one reads; the table has them all.
constexpr std::size_t kModulesCharted = 12;

std::string PhaseWaterfall(const ReportDiff& diff) {
  std::vector<WaterfallStep> steps;
  for (const DeltaPart& phase : diff.phases) {
    if (phase.before_ms || phase.after_ms) steps.push_back({phase.name, phase.delta_ms, ""});
  }
  steps.push_back({"not attributed", diff.not_attributed_ms,
                   diff.phases_time == DiffTime::kUnprofiledSteps
                       ? "the step's change that no phase holds: the phases are means, the "
                         "step's statistic may be their median"
                       : "the step's change that no phase holds: the phases are of the profiled "
                         "steps, the step of the unprofiled ones"});
  return RenderBarChartSvg(
      WaterfallChart("the step's change by phase", diff.step.before_ms, steps, diff.step.after_ms));
}

std::string ModuleWaterfall(const ReportDiff& diff) {
  std::vector<WaterfallStep> steps;
  double others = 0;
  for (std::size_t i = 0; i < diff.modules.size(); ++i) {
    const ModuleDelta& module = diff.modules[i];
    if (i >= kModulesCharted) {
      others += module.part.delta_ms;
      continue;
    }
    const std::string label = module.part.name + (module.own_time ? " (own)" : "");
    steps.push_back({label, module.part.delta_ms, label});
  }
  if (diff.modules.size() > kModulesCharted) steps.push_back({"other modules", others, ""});
  steps.push_back({"outside the modules", diff.modules_not_attributed_ms, ""});
  if (diff.device_not_attributed_ms) {
    // In device time the modules split the step: the device's idle time is its last part.
    steps.push_back({"not in the device's time", *diff.device_not_attributed_ms, ""});
    return RenderBarChartSvg(WaterfallChart("the step's change by module, in device time",
                                            diff.step.before_ms, steps, diff.step.after_ms));
  }
  double before = 0, after = 0;
  for (const DeltaPart& phase : diff.phases) {
    if (phase.name != "forward" && phase.name != "backward") continue;
    before += phase.before_ms.value_or(0);
    after += phase.after_ms.value_or(0);
  }
  return RenderBarChartSvg(
      WaterfallChart("the forward and backward's change by module", before, steps, after));
}

}  // namespace

std::string DiffToHtml(const ReportDiff& diff) {
  std::ostringstream out;
  HtmlPageHead(out, "advisor diff: " + diff.before + " -> " + diff.after);
  out << "<header><div class=\"eyebrow\">advisor diff \u00b7 what changed the step?</div>"
      << "<h1>" << HtmlCode(diff.before) << " \u2192 " << HtmlCode(diff.after)
      << "</h1></header>\n<section id=\"summary\"><p>" << DiffSummary(diff, kHtmlMarkup)
      << "</p>\n";
  if (!diff.notes.empty()) {
    out << "<ul>";
    for (const std::string& note : diff.notes) out << "<li>" << EscapeHtml(note) << "</li>";
    out << "</ul>\n";
  }
  out << "</section>\n<section id=\"phases\"><h2>By phase</h2>\n<p>"
      << EscapeHtml(PhasesTimeLine(diff)) << "</p>\n"
      << PhaseWaterfall(diff) << "\n";
  HtmlTable(out, PhaseDiffTable(diff));
  out << "</section>\n<section id=\"modules\"><h2>By module</h2>\n<p>"
      << EscapeHtml(ModulesTimeLine(diff)) << "</p>\n"
      << ModuleWaterfall(diff) << "\n";
  HtmlTable(out, ModuleDiffTable(diff));
  out << "</section>\n<section id=\"ops\"><h2>By op</h2>\n<p>" << EscapeHtml(OpsTimeLine(diff))
      << "</p>\n";
  HtmlTable(out, OpDiffTable(diff));
  out << "</section>\n<section id=\"findings\"><h2>Findings that changed</h2>\n<ul>";
  for (const FindingChange& change : diff.findings) {
    out << "<li>" << FindingChangeLine(change, kHtmlMarkup) << "</li>";
  }
  out << "</ul><p>" << diff.findings_unchanged << " unchanged.</p></section>\n"
      << "<section id=\"fixes\"><h2>Fixes that changed</h2>\n";
  if (diff.fixes.empty()) {
    out << "<p>None.</p>\n";
  } else {
    HtmlTable(out, FixDiffTable(diff));
  }
  out << "</section>\n</main></body></html>\n";
  return out.str();
}

}  // namespace advisor
