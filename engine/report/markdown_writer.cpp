#include "engine/report/markdown_writer.h"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "engine/model/measured.h"
#include "engine/report/compile_section.h"
#include "engine/report/compiled_kernels_section.h"
#include "engine/report/format.h"
#include "engine/report/markdown_markup.h"
#include "engine/report/report_tables.h"
#include "engine/report/report_text.h"
#include "engine/util/printable_text.h"

namespace advisor {

namespace {

// Each fix's detail (why it was rejected or failed, its stderr's tail), one item each.
void RenderFixDetails(std::ostringstream& out, const std::vector<FixResult>& fixes) {
  for (const FixResult& fix : fixes) {
    if (fix.detail.empty()) continue;
    out << "- " << MarkdownCode(fix.recipe) << ": " << MarkdownText(fix.detail) << "\n";
  }
  out << "\n";
}

// First after the summary: the failure is the diagnosis, and the findings below are its fixes.
void RenderOutOfMemory(std::ostringstream& out, const RunReport& report) {
  if (!report.out_of_memory) return;
  const OutOfMemoryFailure& failure = *report.out_of_memory;
  out << "## Out of memory\n\n" << MarkdownCode(failure.message) << "\n\n";
  MarkdownTable(out, OutOfMemoryFailureTable(failure));
  if (failure.live) {
    const MemoryPeak& live = *failure.live;
    out << "### Live at the failure, by category\n\n";
    MarkdownTable(out, MemoryShareTable(live.by_category, "held", false, live.mb, "the failure"));
    if (!live.by_module.empty()) {
      out << "### Kept for backward at the failure, by module instance\n\n"
          << OutOfMemoryHolder(failure, kMarkdownMarkup) << ".\n\n";
      MarkdownTable(
          out, MemoryShareTable(live.by_module, "module instance", true, live.mb, "the failure"));
    }
  }
  if (report.fixes.empty()) return;
  out << "### The fixes, each run alone\n\n"
      << OutOfMemoryFixesSentence(report.fixes, kMarkdownMarkup) << "\n\n";
  MarkdownTable(out, OutOfMemoryFixTable(report.fixes, failure));
  RenderFixDetails(out, report.fixes);
}

void RenderSteps(std::ostringstream& out, const RunReport& report) {
  if (AbsentSectionOf(report, "step")) return;
  out << "## Step breakdown\n\n";
  MarkdownTable(out, StepTable(report.step, report.data));
}

void RenderLoss(std::ostringstream& out, const RunReport& report) {
  if (!report.loss) return;
  out << "## The loss\n\n" << MarkdownText(LossSentence(*report.loss)) << "\n\n";
  if (!report.loss->lines.empty()) MarkdownTable(out, SourceLineTable(report.loss->lines));
}

void RenderCompile(std::ostringstream& out, const RunReport& report) {
  if (!report.compile) return;
  out << "## torch.compile\n\n" << MarkdownText(CompileSentence(*report.compile)) << "\n\n";
  if (report.compile->cuda_graphs) {
    out << MarkdownText(CudaGraphsSentence(*report.compile->cuda_graphs)) << "\n\n";
  }
  const Table table = CompileTable(*report.compile);
  if (!table.rows.empty()) MarkdownTable(out, table);
}

void RenderCompiledKernels(std::ostringstream& out, const RunReport& report) {
  if (!report.compiled_kernels) return;
  out << "## Inside the compiled model\n\n"
      << MarkdownText(CompiledKernelsSentence(*report.compiled_kernels)) << "\n\n";
  const Table table = CompiledKernelsTable(*report.compiled_kernels);
  if (!table.rows.empty()) MarkdownTable(out, table);
  const std::string left_out = CompiledInstancesLeftOut(*report.compiled_kernels);
  if (!left_out.empty()) out << MarkdownText(left_out) << "\n\n";
}

void RenderInputStage(std::ostringstream& out, const RunReport& report) {
  if (!report.data || !report.data->stage) return;
  out << "## The input stage\n\n" << InputStageSentence(*report.data, kMarkdownMarkup) << "\n\n";
  MarkdownTable(out, InputStageTable(*report.data->stage));
}

void RenderRanks(std::ostringstream& out, const RunReport& report) {
  if (!report.distributed) return;
  out << "## Ranks\n\n" << DistributedSentence(*report.distributed, kMarkdownMarkup) << "\n\n";
  MarkdownTable(out, RankTable(*report.distributed));
}

void RenderBisection(std::ostringstream& out, const RunReport& report) {
  if (AbsentSectionOf(report, "bisection")) return;
  out << "## Bisection path\n\n";
  if (report.levels.empty()) {
    out << "No level was bisected.\n\n";
    return;
  }
  for (const BisectLevel& level : report.levels) {
    out << "### " << LevelTitle(level, kMarkdownMarkup) << "\n\n";
    MarkdownTable(out, CandidateTable(level, LevelsGpuMeasured(report)));
    if (level.chosen.empty()) {
      out << "Descent stopped here";
    } else {
      out << "Chose " << MarkdownCode(level.chosen);
    }
    if (!level.reason.empty()) out << ": " << MarkdownText(level.reason);
    out << ".";
    if (level.reused_window) out << " Measured in the previous level's window.";
    out << "\n\n";
  }
}

void RenderHotspot(std::ostringstream& out, const RunReport& report) {
  if (AbsentSectionOf(report, "hotspot")) return;
  out << "## Hot spot\n\n";
  if (!report.hotspot) {
    out << "No hot spot was isolated.\n\n";
    return;
  }
  const Hotspot& hotspot = *report.hotspot;
  out << MarkdownCode(hotspot.path) << " \u2192 " << MarkdownCode(hotspot.op)
      << MadeBy(hotspot, kMarkdownMarkup);
  out << ", " << MarkdownText(hotspot.phase) << " pass: " << FormatNumber(hotspot.ms)
      << " ms/step, " << FormatShare(hotspot.share) << " of the step";
  if (ModuleOutweighsItsOp(hotspot)) {
    out << "; the module's forward and backward " << FormatNumber(hotspot.module_ms) << " ms/step, "
        << FormatShare(hotspot.module_share) << " of the step";
  }
  out << ".\n\n";
  if (hotspot.source) {
    out << "Source: "
        << MarkdownCode(hotspot.source->file + ":" + std::to_string(hotspot.source->line));
    if (!hotspot.source->text.empty()) out << ": " << MarkdownCode(hotspot.source->text);
    out << "\n\n";
    const std::string op_lines = OpLinesSentence(hotspot, kMarkdownMarkup);
    if (!op_lines.empty()) out << op_lines << "\n\n";
  } else {
    out << "Source: " << MarkdownText(NoSourceSentence(report)) << "\n\n";
  }
  if (!hotspot.lines.empty()) {
    out << "Lines of " << MarkdownCode(hotspot.path) << "'s forward, each with its part of the "
        << "module's time:\n\n";
    MarkdownTable(out, SourceLineTable(hotspot.lines));
  }
  if (!hotspot.top_ops.empty() && HotspotByProvenance(report)) {
    out << "Top kernels of " << MarkdownCode(hotspot.path) << ":\n\n";
    MarkdownTable(out, KernelTable(hotspot.top_ops, LevelsGpuMeasured(report), kTopOpsShown));
  } else if (!hotspot.top_ops.empty()) {
    out << "Top ops of " << MarkdownCode(hotspot.path) << ":\n\n";
    MarkdownTable(out, OpTable(hotspot.top_ops, LevelsGpuMeasured(report),
                               PageFaultsCounted(report), kTopOpsShown));
    const std::string fresh_pages = FreshPagesSentence(hotspot, kMarkdownMarkup);
    if (!fresh_pages.empty()) out << fresh_pages << "\n\n";
  }
}

// A finding's change to the user's code, each line a code span of its own (a fenced block would
// end the list item): the lines it replaces, numbered, then what replaces them.
void RenderWhatToChange(std::ostringstream& out, const CodeChange& change) {
  out << "   - What to change: " << MarkdownText(change.advice) << "\n";
  for (std::size_t i = 0; i < change.before.size(); ++i) {
    out << "     - line " << change.first_line + static_cast<int>(i)
        << ", before: " << MarkdownCode(change.before[i]) << "\n";
  }
  for (const std::string& line : change.after) {
    out << "     - after: " << MarkdownCode(line) << "\n";
  }
}

void RenderFindings(std::ostringstream& out, const RunReport& report) {
  out << "## Findings\n\n";
  if (report.findings.empty()) {
    out << "The rules raised no findings.\n\n";
    return;
  }
  int rank = 0;
  // In the report's order: ranked where the rules and the autotest ran (RankFindings).
  for (const Finding& finding : report.findings) {
    out << ++rank << ". **" << SeverityName(finding.severity) << "** "
        << MarkdownCode(finding.rule);
    if (!finding.path.empty()) out << " at " << MarkdownCode(finding.path);
    if (!finding.op.empty()) out << " (" << MarkdownCode(finding.op) << ")";
    out << ": " << MarkdownText(finding.message) << "\n";
    if (!finding.evidence.empty()) {
      out << "   - Evidence: " << MarkdownText(finding.evidence) << "\n";
    }
    if (finding.source) {
      out << "   - In your code: "
          << MarkdownCode(finding.source->file + ":" + std::to_string(finding.source->line));
      if (!finding.source->text.empty()) out << " " << MarkdownCode(finding.source->text);
      out << "\n";
    }
    if (finding.change) RenderWhatToChange(out, *finding.change);
    if (finding.expected_gain_ms) {
      out << "   - Expected gain: " << FormatNumber(*finding.expected_gain_ms) << " ms/step\n";
    }
    if (finding.expected_saving_mb) {
      out << "   - Expected saving: " << FormatNumber(*finding.expected_saving_mb) << " MB\n";
    }
    for (const std::string& recipe : RecipesOf(finding)) {
      out << "   - Recipe: " << MarkdownCode(recipe);
      if (const FixResult* fix = FixForRecipe(report, recipe)) {
        out << ", measured " << MarkdownText(FixOutcome(*fix));
      }
      out << "\n";
    }
  }
  out << "\n";
}

void RenderFixes(std::ostringstream& out, const RunReport& report) {
  // A run that ran out of memory shows its candidate-only runs in its own section.
  if (report.fixes.empty() || report.out_of_memory) return;
  out << "## Fixes tried\n\n";
  MarkdownTable(out, FixTable(report.fixes));
  RenderFixDetails(out, report.fixes);
  for (const FixResult& fix : report.fixes) {
    if (fix.worker_series.empty()) continue;
    out << "The worker counts " << MarkdownCode(fix.recipe) << " tried:\n\n";
    MarkdownTable(out, WorkerSeriesTable(fix));
  }
  for (const FixResult& fix : report.fixes) {
    if (fix.suggested_change.empty()) continue;
    out << "The change " << MarkdownCode(fix.recipe) << " asks of the code:\n\n```diff\n"
        << fix.suggested_change << "```\n\n";
  }
  for (const FixResult& fix : report.fixes) {
    for (const MethodChange& change : fix.code_changes) {
      out << "The TorchScript code " << MarkdownCode(fix.recipe) << " changed in "
          << MarkdownCode(change.module_type + "." + change.method) << ":\n\n```diff\n"
          << change.diff << "```\n\n";
    }
    if (!fix.saved_model.empty()) {
      out << "The model with " << MarkdownCode(fix.recipe) << " applied is saved as "
          << MarkdownCode(fix.saved_model) << ".\n\n";
    }
  }
}

void RenderGpu(std::ostringstream& out, const RunReport& report) {
  if (report.gpu) {
    out << "## GPU\n\n";
    MarkdownTable(out, GpuTable(*report.gpu));
  }
  if (!report.syncs.empty()) {
    out << "### Host-device synchronisations\n\n";
    MarkdownTable(out, SyncTable(report.syncs));
  }
  if (!report.copies.empty()) {
    out << "### Host-to-device copies every step\n\n";
    MarkdownTable(out, CopyTable(report.copies));
  }
  if (report.memory && ShowsAllocatorStats(*report.memory)) {
    out << "### Device memory\n\n";
    MarkdownTable(out, MemoryTable(*report.memory));
  }
}

// A snapshot's or a bisection's memory: the peak and what held it, a bisection's step phase by
// phase, memory per module instance, the OOMs. The chart is report.html's.
void RenderMemory(std::ostringstream& out, const RunReport& report) {
  if (!report.memory || !report.memory->peak) return;
  const MemoryStats& memory = *report.memory;
  const MemoryPeak& peak = *memory.peak;
  out << "## Memory\n\n";
  MarkdownTable(out, MemoryPeakTable(memory));
  if (memory.timeline && !memory.timeline->points.empty()) {
    out << "### Live memory over the step of the peak\n\n"
           "report.html draws it, with the instances' calls under it.\n\n";
    MarkdownTable(out, StepMemoryTable(*memory.timeline));
  }
  out << "### Live at the peak, by category\n\n";
  MarkdownTable(out, MemoryShareTable(peak.by_category, "allocated", false, peak.mb));
  if (!peak.by_user_frame.empty()) {
    out << "### Live at the peak, by the line of your code that allocated it\n\n";
    MarkdownTable(out, MemoryShareTable(peak.by_user_frame, "line", true, peak.mb));
  }
  if (!peak.by_module.empty()) {
    out << "### Live at the peak, by module instance\n\n";
    MarkdownTable(out, MemoryShareTable(peak.by_module, "module instance", true, peak.mb));
  }
  if (!memory.modules.empty()) {
    out << "### Memory per module instance\n\n";
    MarkdownTable(out, ModuleMemoryTable(memory.modules, kMemoryModulesShown));
  }
  if (memory.history && !memory.history->ooms.empty()) {
    out << "### Out of memory\n\n";
    MarkdownTable(out, OutOfMemoryTable(*memory.history));
  }
}

void RenderModules(std::ostringstream& out, const RunReport& report) {
  const Table table = ModuleTable(report.modules, LevelsGpuMeasured(report), kModulesShown);
  if (table.rows.empty()) return;
  out << "## Modules\n\n";
  MarkdownTable(out, table);
}

void RenderOps(std::ostringstream& out, const RunReport& report) {
  if (report.ops.empty()) return;
  out << "## Top ops of the step\n\n";
  MarkdownTable(out,
                OpTable(report.ops, GpuMeasured(report), PageFaultsCounted(report), kTopOpsShown));
}

void RenderMeasurement(std::ostringstream& out, const RunReport& report) {
  out << "## What was measured on what\n\n";
  MarkdownTable(out, RunTable(report.run, GpuMeasured(report)));
  if (!AbsentSectionOf(report, "cross_check")) {
    out << "Cross-check: " << MarkdownText(CrossCheckSentence(report.cross_check)) << "\n\n";
  }
  out << "### Data quality\n\n";
  if (report.data_quality.empty()) out << "No problems were recorded.\n";
  for (const std::string& line : report.data_quality) out << "- " << MarkdownText(line) << "\n";
  if (report.absent.empty()) return;
  out << "\n### Not in this report\n\n";
  for (const AbsentSection& absent : report.absent) {
    out << "- " << MarkdownCode(absent.section) << ": " << MarkdownText(absent.reason) << "\n";
  }
}

}  // namespace

std::string ReportToMarkdown(const RunReport& report) {
  std::ostringstream out;
  out << "# advisor report: " << MarkdownCode(report.run.model) << "\n\n";
  out << SummaryParagraph(report, kMarkdownMarkup) << "\n\n";
  RenderOutOfMemory(out, report);
  RenderSteps(out, report);
  RenderMemory(out, report);
  RenderLoss(out, report);
  RenderCompile(out, report);
  RenderCompiledKernels(out, report);
  RenderInputStage(out, report);
  RenderRanks(out, report);
  RenderBisection(out, report);
  RenderHotspot(out, report);
  RenderFindings(out, report);
  RenderFixes(out, report);
  RenderGpu(out, report);
  RenderModules(out, report);
  RenderOps(out, report);
  RenderMeasurement(out, report);
  return out.str();
}

}  // namespace advisor
