#include "engine/diff/diff_markdown.h"

#include <sstream>

#include "engine/diff/diff_text.h"
#include "engine/report/markdown_markup.h"

namespace advisor {

std::string DiffToMarkdown(const ReportDiff& diff) {
  const InlineMarkup& markup = kMarkdownMarkup;
  std::ostringstream out;
  out << "# advisor diff\n\nbefore: " << MarkdownCode(diff.before)
      << "  \nafter: " << MarkdownCode(diff.after) << "\n\n"
      << DiffSummary(diff, markup) << "\n\n";
  for (const std::string& note : diff.notes) out << "- " << MarkdownText(note) << "\n";
  if (!diff.notes.empty()) out << "\n";
  out << "## By phase\n\n" << MarkdownText(PhasesTimeLine(diff)) << "\n\n";
  MarkdownTable(out, PhaseDiffTable(diff));
  out << "## By module\n\n" << MarkdownText(ModulesTimeLine(diff)) << "\n\n";
  MarkdownTable(out, ModuleDiffTable(diff));
  out << "## By op\n\n" << MarkdownText(OpsTimeLine(diff)) << "\n\n";
  MarkdownTable(out, OpDiffTable(diff));
  out << "## Findings that changed\n\n";
  for (const FindingChange& change : diff.findings) {
    out << "- " << FindingChangeLine(change, markup) << "\n";
  }
  out << (diff.findings.empty() ? "None." : "") << "\n"
      << MarkdownText(std::to_string(diff.findings_unchanged) + " unchanged.") << "\n\n";
  out << "## Fixes that changed\n\n";
  if (diff.fixes.empty()) {
    out << "None.\n";
  } else {
    MarkdownTable(out, FixDiffTable(diff));
  }
  return out.str();
}

}  // namespace advisor
