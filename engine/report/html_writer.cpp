#include "engine/report/html_writer.h"

#include <algorithm>
#include <sstream>

#include "engine/model/measured.h"
#include "engine/report/compile_section.h"
#include "engine/report/compiled_kernels_section.h"
#include "engine/report/format.h"
#include "engine/report/html_escape.h"
#include "engine/report/html_markup.h"
#include "engine/report/json_writer.h"
#include "engine/report/report_tables.h"
#include "engine/report/report_text.h"
#include "engine/report/svg_bar_chart.h"
#include "engine/report/svg_memory_chart.h"

namespace advisor {

namespace {

constexpr std::size_t kModulesCharted = 24;

std::string Ms(double ms) { return FormatNumber(ms) + " ms"; }

// Fix statuses come from the autotester as strings; only known ones become CSS classes.
std::string StatusClass(const std::string& status) {
  for (const char* known : {"verified", "rejected", "failed", "no-change"}) {
    if (status == known) return known;
  }
  return "info";
}

void RenderTile(std::ostringstream& out, const std::string& name, const std::string& big_html,
                const std::string& sub_html) {
  out << "<div class=\"tile\"><div class=\"name\">" << EscapeHtml(name)
      << "</div><div class=\"big\">" << big_html << "</div><div class=\"sub\">" << sub_html
      << "</div></div>\n";
}

void RenderHeader(std::ostringstream& out, const RunReport& report) {
  const RunInfo& run = report.run;
  out << "<header><div class=\"eyebrow\">advisor \u00b7 why is this training step slow?</div>"
      << "<h1>" << HtmlCode(run.model) << "</h1><div class=\"meta\">";
  if (run.mode == Door::kSnapshot) {
    out << "allocator snapshot \u00b7 " << EscapeHtml(run.device_name) << "</div></header>\n";
    return;
  }
  out << EscapeHtml(run.device_name.empty() ? run.device
                                            : run.device + " \u00b7 " + run.device_name)
      << (run.mode == Door::kScript ? " \u00b7 PyTorch " : " \u00b7 LibTorch ")
      << EscapeHtml(run.torch_version)
      << (run.mode == Door::kScript ? " \u00b7 Python " + EscapeHtml(run.python_version) : "")
      << " \u00b7 batch " << run.batch_size << " \u00b7 " << EscapeHtml(run.dtype)
      << "</div></header>\n";
}

// A snapshot's tiles: how high memory went, what was reserved then, what held the most.
void RenderMemoryTiles(std::ostringstream& out, const RunReport& report) {
  const MemoryPeak& peak = *report.memory->peak;
  const auto mb = [](double value) { return EscapeHtml(FormatNumber(value) + " MB"); };
  RenderTile(out, "Peak allocated", mb(peak.mb),
             peak.phase.empty() ? "phase not told" : "in the " + EscapeHtml(peak.phase) + " pass");
  RenderTile(out, "Reserved at the peak", mb(peak.reserved_mb),
             mb(peak.reserved_mb - peak.mb) + " of it not allocated");
  RenderTile(out, "Holding the most",
             peak.path.empty() ? EscapeHtml(peak.category) : HtmlCode(peak.path),
             peak.path.empty() ? "category (no module range)" : "module instance");
}

// A run's tiles: the step, the hot spot, how busy the GPU was.
void RenderStepTiles(std::ostringstream& out, const RunReport& report) {
  RenderTile(out, "Step time (median)", EscapeHtml(Ms(report.step.median_ms)),
             EscapeHtml("min " + Ms(report.step.min_ms) + " \u00b7 max " + Ms(report.step.max_ms)));
  if (report.hotspot) {
    RenderTile(out, "Hot spot", HtmlCode(report.hotspot->path),
               HtmlCode(report.hotspot->op) + " \u00b7 " + EscapeHtml(report.hotspot->phase));
    RenderTile(out, "Hot spot cost", EscapeHtml(Ms(report.hotspot->ms)),
               EscapeHtml(FormatShare(report.hotspot->share) + " of the step" +
                          (ModuleOutweighsItsOp(*report.hotspot)
                               ? " \u00b7 the module " + FormatShare(report.hotspot->module_share)
                               : std::string())));
  } else {
    RenderTile(out, "Hot spot", "none", "no single module stood out");
  }
  RenderTile(out, "GPU busy",
             report.gpu ? EscapeHtml(FormatShare(report.gpu->busy_fraction)) : NotMeasuredSpan(),
             report.gpu ? "of the step's wall time" : "no GPU probe");
}

// A run that ran out of memory: that it failed, what it asked for, where.
void RenderOutOfMemoryTiles(std::ostringstream& out, const OutOfMemoryFailure& failure) {
  RenderTile(out, "Run failed", "out of memory",
             EscapeHtml("after " + std::to_string(failure.steps_done) + " training steps"));
  RenderTile(out, "Requested",
             failure.requested_mb ? EscapeHtml(FormatNumber(*failure.requested_mb) + " MB")
                                  : NotMeasuredSpan(),
             "the allocation that failed");
  RenderTile(out, "Where", failure.path.empty() ? "no module" : HtmlCode(failure.path),
             failure.phase.empty() ? "phase not told" : EscapeHtml(failure.phase) + " pass");
}

void RenderSummary(std::ostringstream& out, const RunReport& report) {
  out << "<section id=\"summary\"><div class=\"tiles\">\n";
  if (report.out_of_memory) {
    RenderOutOfMemoryTiles(out, *report.out_of_memory);
  } else if (AbsentSectionOf(report, "step") && report.memory && report.memory->peak) {
    RenderMemoryTiles(out, report);
  } else {
    RenderStepTiles(out, report);
  }
  const auto high = std::count_if(report.findings.begin(), report.findings.end(),
                                  [](const Finding& f) { return f.severity == Severity::kHigh; });
  RenderTile(out, "Findings", std::to_string(report.findings.size()),
             std::to_string(high) + " high severity");
  out << "</div>\n<p class=\"summary\">" << SummaryParagraph(report, kHtmlMarkup)
      << "</p></section>\n";
}

// Each fix's detail (why it was rejected or failed, its stderr's tail), folded.
void RenderFixDetails(std::ostringstream& out, const std::vector<FixResult>& fixes) {
  for (const FixResult& fix : fixes) {
    if (fix.detail.empty()) continue;
    out << "<details><summary>" << HtmlCode(fix.recipe)
        << ": details</summary><pre class=\"source\">" << EscapeHtml(fix.detail)
        << "</pre></details>\n";
  }
}

// First after the summary: the failure is the diagnosis, and the findings are its fixes.
void RenderOutOfMemory(std::ostringstream& out, const RunReport& report) {
  if (!report.out_of_memory) return;
  const OutOfMemoryFailure& failure = *report.out_of_memory;
  out << "<section id=\"out-of-memory\"><h2>Out of memory</h2>\n<p>" << HtmlCode(failure.message)
      << "</p>\n";
  HtmlTable(out, OutOfMemoryFailureTable(failure));
  if (failure.live) {
    const MemoryPeak& live = *failure.live;
    out << "<h3>Live at the failure, by category</h3>\n";
    HtmlTable(out, MemoryShareTable(live.by_category, "held", false, live.mb, "the failure"));
    if (!live.by_module.empty()) {
      out << "<h3>Kept for backward at the failure, by module instance</h3>\n<p>"
          << OutOfMemoryHolder(failure, kHtmlMarkup) << ".</p>\n";
      HtmlTable(out,
                MemoryShareTable(live.by_module, "module instance", true, live.mb, "the failure"));
    }
  }
  if (!report.fixes.empty()) {
    out << "<h3>The fixes, each run alone</h3>\n<p>"
        << OutOfMemoryFixesSentence(report.fixes, kHtmlMarkup) << "</p>\n";
    HtmlTable(out, OutOfMemoryFixTable(report.fixes, failure));
    RenderFixDetails(out, report.fixes);
  }
  out << "</section>\n";
}

void RenderSteps(std::ostringstream& out, const RunReport& report) {
  if (AbsentSectionOf(report, "step")) return;
  const StepBreakdown& step = report.step;
  // The profiled window's mean step and its phases, which add up to it (profiled_ms).
  const double whole = SharesStepMs(step);
  BarRow row{"profiled step (mean)",
             {},
             Ms(whole),
             "forward " + Ms(step.forward_ms) +
                 (step.loss_ms ? ", loss " + Ms(*step.loss_ms) : std::string()) + ", backward " +
                 Ms(step.backward_ms) + ", optimizer " + Ms(step.optimizer_ms) + " of a " +
                 Ms(whole) + " step"};
  BarChart chart{"Step breakdown", {}, {}};
  // In the step's order: the batch, the forward, the loss, the backward, the optimizer.
  const auto add = [&](double ms, const char* fill, const std::string& legend) {
    row.segments.push_back({ms, fill});
    chart.legend.push_back({fill, legend});
  };
  if (report.data) add(report.data->wait_ms, "fill-data", DataPhaseLegend(*report.data, step));
  add(step.forward_ms, "fill-forward", "forward");
  if (step.loss_ms) add(*step.loss_ms, "fill-loss", "loss");
  add(step.backward_ms, "fill-backward", "backward");
  add(step.optimizer_ms, "fill-optimizer", "optimizer");
  if (step.evaluation_ms > 0) {
    add(step.evaluation_ms, "fill-evaluation", "evaluation between steps");
  }
  if (step.rest_ms > 0) add(step.rest_ms, "fill-rest", "rest of the step");
  chart.rows.push_back(std::move(row));
  out << "<section id=\"step\"><h2>Step breakdown</h2>\n" << RenderBarChartSvg(chart) << "\n";
  HtmlTable(out, StepTable(step, report.data));
  out << "</section>\n";
}

BarChart LevelChart(const BisectLevel& level) {
  BarChart chart{"Candidates' shares of their parent", {}, {}, AxisUnit::kShare, 1.0};
  for (const Candidate& candidate : level.candidates) {
    const bool chosen = !level.chosen.empty() && candidate.path == level.chosen;
    std::string label = candidate.path;
    if (candidate.instances > 1) label += " \u00d7" + std::to_string(candidate.instances);
    chart.rows.push_back({label,
                          {{candidate.share, chosen ? "fill-chosen" : "fill-candidate"}},
                          FormatShare(candidate.share) + " \u00b7 " +
                              Ms(candidate.forward_ms + candidate.backward_ms),
                          candidate.path + ": forward " + Ms(candidate.forward_ms) + ", backward " +
                              Ms(candidate.backward_ms) + ", " + FormatShare(candidate.share) +
                              " of the parent",
                          chosen});
  }
  return chart;
}

// Each rank's step, its exposed communication apart: the straggler computes while the others
// wait in the collectives, which shows as their longer exposed share.
BarChart RankChart(const DistributedSummary& distributed) {
  BarChart chart{"Step time per rank, with the communication no compute overlaps",
                 {},
                 {{"fill-rest", "compute and overlapped communication"},
                  {"fill-data", "exposed communication"}}};
  for (const RankSummary& rank : distributed.ranks) {
    const double exposed = std::min(rank.exposed_comm_ms, rank.step_ms);
    const bool straggler = distributed.straggler && distributed.straggler->rank == rank.rank &&
                           distributed.straggler->holds_unprofiled.value_or(true);
    chart.rows.push_back({"rank " + std::to_string(rank.rank) + (straggler ? " (straggler)" : ""),
                          {{rank.step_ms - exposed, "fill-rest"}, {exposed, "fill-data"}},
                          Ms(rank.step_ms),
                          "rank " + std::to_string(rank.rank) + ": " + Ms(rank.step_ms) +
                              " step, " + Ms(rank.exposed_comm_ms) +
                              " of it in collectives with nothing computing, " + Ms(rank.late_ms) +
                              " late to the collectives",
                          straggler});
  }
  return chart;
}

void RenderLoss(std::ostringstream& out, const RunReport& report) {
  if (!report.loss) return;
  out << "<section id=\"loss\"><h2>The loss</h2>\n<p>" << EscapeHtml(LossSentence(*report.loss))
      << "</p>\n";
  if (!report.loss->lines.empty()) HtmlTable(out, SourceLineTable(report.loss->lines));
  out << "</section>\n";
}

void RenderCompile(std::ostringstream& out, const RunReport& report) {
  if (!report.compile) return;
  out << "<section id=\"compile\"><h2>torch.compile</h2>\n<p>"
      << EscapeHtml(CompileSentence(*report.compile)) << "</p>\n";
  if (report.compile->cuda_graphs) {
    out << "<p>" << EscapeHtml(CudaGraphsSentence(*report.compile->cuda_graphs)) << "</p>\n";
  }
  const Table table = CompileTable(*report.compile);
  if (!table.rows.empty()) HtmlTable(out, table);
  out << "</section>\n";
}

void RenderCompiledKernels(std::ostringstream& out, const RunReport& report) {
  if (!report.compiled_kernels) return;
  out << "<section id=\"compiled-kernels\"><h2>Inside the compiled model</h2>\n<p>"
      << EscapeHtml(CompiledKernelsSentence(*report.compiled_kernels)) << "</p>\n";
  const Table table = CompiledKernelsTable(*report.compiled_kernels);
  if (!table.rows.empty()) HtmlTable(out, table);
  const std::string left_out = CompiledInstancesLeftOut(*report.compiled_kernels);
  if (!left_out.empty()) out << "<p class=\"note\">" << EscapeHtml(left_out) << "</p>\n";
  out << "</section>\n";
}

void RenderInputStage(std::ostringstream& out, const RunReport& report) {
  if (!report.data || !report.data->stage) return;
  out << "<section id=\"input-stage\"><h2>The input stage</h2>\n<p>"
      << InputStageSentence(*report.data, kHtmlMarkup) << "</p>\n";
  HtmlTable(out, InputStageTable(*report.data->stage));
  out << "</section>\n";
}

void RenderRanks(std::ostringstream& out, const RunReport& report) {
  if (!report.distributed) return;
  out << "<section id=\"ranks\"><h2>Ranks</h2>\n<p>"
      << DistributedSentence(*report.distributed, kHtmlMarkup) << "</p>\n"
      << RenderBarChartSvg(RankChart(*report.distributed)) << "\n";
  HtmlTable(out, RankTable(*report.distributed));
  out << "</section>\n";
}

void RenderBisection(std::ostringstream& out, const RunReport& report) {
  if (AbsentSectionOf(report, "bisection")) return;
  out << "<section id=\"bisection\"><h2>Bisection path</h2>\n";
  if (report.levels.empty()) out << "<p>No level was bisected.</p>\n";
  for (const BisectLevel& level : report.levels) {
    out << "<div class=\"level\"><h3>" << LevelTitle(level, kHtmlMarkup);
    if (level.reused_window) {
      out << " <span class=\"badge info\" title=\"measured in the previous level's window\">"
             "reused window</span>";
    }
    out << "</h3>\n" << RenderBarChartSvg(LevelChart(level)) << "\n<p class=\"reason\">";
    out << (level.chosen.empty() ? std::string("<span class=\"label\">Stopped here.</span>")
                                 : "<span class=\"label\">Chose</span> " + HtmlCode(level.chosen));
    if (!level.reason.empty()) out << " \u2014 " << EscapeHtml(level.reason);
    out << "</p>\n<details><summary>Numbers for this level</summary>\n";
    HtmlTable(out, CandidateTable(level, LevelsGpuMeasured(report)));
    out << "</details></div>\n";
  }
  out << "</section>\n";
}

void RenderHotspot(std::ostringstream& out, const RunReport& report) {
  if (AbsentSectionOf(report, "hotspot")) return;
  out << "<section id=\"hotspot\"><h2>Hot spot</h2>\n";
  if (!report.hotspot) {
    out << "<p>No hot spot was isolated.</p></section>\n";
    return;
  }
  const Hotspot& hotspot = *report.hotspot;
  out << "<p>" << HtmlCode(hotspot.path) << " \u2192 " << HtmlCode(hotspot.op)
      << MadeBy(hotspot, kHtmlMarkup);
  out << " in the " << EscapeHtml(hotspot.phase) << " pass: <strong>" << EscapeHtml(Ms(hotspot.ms))
      << "</strong> per step, <strong>" << EscapeHtml(FormatShare(hotspot.share))
      << "</strong> of the step.</p>\n";
  if (hotspot.source) {
    out << "<pre class=\"source\"><span class=\"where\">" << EscapeHtml(hotspot.source->file) << ":"
        << hotspot.source->line << "</span>" << EscapeHtml(hotspot.source->text) << "</pre>\n";
    const std::string op_lines = OpLinesSentence(hotspot, kHtmlMarkup);
    if (!op_lines.empty()) out << "<p class=\"note\">" << op_lines << "</p>\n";
  } else {
    out << "<p class=\"note\">" << EscapeHtml(NoSourceSentence(report)) << "</p>\n";
  }
  if (!hotspot.lines.empty()) {
    out << "<h3>Lines of " << HtmlCode(hotspot.path) << "'s forward</h3>\n";
    HtmlTable(out, SourceLineTable(hotspot.lines));
  }
  if (!hotspot.top_ops.empty() && HotspotByProvenance(report)) {
    out << "<h3>Top kernels of " << HtmlCode(hotspot.path) << "</h3>\n";
    HtmlTable(out, KernelTable(hotspot.top_ops, LevelsGpuMeasured(report), kTopOpsShown));
  } else if (!hotspot.top_ops.empty()) {
    out << "<h3>Top ops of " << HtmlCode(hotspot.path) << "</h3>\n";
    HtmlTable(out, OpTable(hotspot.top_ops, LevelsGpuMeasured(report), PageFaultsCounted(report),
                           kTopOpsShown));
    const std::string fresh_pages = FreshPagesSentence(hotspot, kHtmlMarkup);
    if (!fresh_pages.empty()) out << "<p class=\"note\">" << fresh_pages << "</p>\n";
  }
  out << "</section>\n";
}

void RenderModules(std::ostringstream& out, const RunReport& report) {
  std::vector<const ModuleStats*> measured;
  for (const ModuleStats& module : report.modules) {
    if (module.measured) measured.push_back(&module);
  }
  if (measured.empty()) return;
  std::stable_sort(measured.begin(), measured.end(),
                   [](const ModuleStats* a, const ModuleStats* b) {
                     return a->forward_ms + a->backward_ms > b->forward_ms + b->backward_ms;
                   });
  BarChart chart{"Forward and backward time per measured module",
                 {},
                 {{"fill-forward", "forward"}, {"fill-backward", "backward"}}};
  for (std::size_t i = 0; i < std::min(kModulesCharted, measured.size()); ++i) {
    const ModuleStats& module = *measured[i];
    chart.rows.push_back(
        {module.path,
         {{module.forward_ms, "fill-forward"}, {module.backward_ms, "fill-backward"}},
         Ms(module.forward_ms + module.backward_ms),
         module.path + " (" + module.type + "): forward " + Ms(module.forward_ms) + ", backward " +
             Ms(module.backward_ms)});
  }
  out << "<section id=\"modules\"><h2>Modules measured</h2>\n"
      << "<p class=\"note\">Per step, for every module "
      << (report.run.mode == Door::kTrace ? "the trace names" : "some level instrumented")
      << ", slowest first.";
  if (measured.size() > kModulesCharted) {
    out << " The " << measured.size() - kModulesCharted << " fastest are not shown.";
  }
  out << "</p>\n" << RenderBarChartSvg(chart) << "\n</section>\n";
}

// Lines of the user's code, one under the other, in a code block; `kind` "before" or "after"
// colours a change's two sides, "" leaves a line as it is.
std::string CodeBlock(const std::vector<std::string>& lines, const std::string& kind) {
  std::string block = "<pre class=\"source" + (kind.empty() ? "" : " " + kind) + "\">";
  for (const std::string& line : lines) block += EscapeHtml(line) + "\n";
  return block + "</pre>";
}

// Where in the user's code a finding is and what to change there: the file and line, the lines
// before and after where the recipe's change has them, else the line as it is and the change in
// words.
void RenderWhatToChange(std::ostringstream& out, const Finding& finding) {
  if (!finding.source) return;
  const SourceLocation& at = *finding.source;
  const std::optional<CodeChange>& change = finding.change;
  const bool lines = change && !change->before.empty();
  const int count = lines ? static_cast<int>(change->before.size()) : 1;
  const int first = lines ? change->first_line : at.line;
  out << "<div class=\"change\"><div class=\"change-head\">What to change</div><div>in "
      << HtmlCode(at.file) << (count > 1 ? ", lines " : ", line ") << first;
  if (count > 1) out << "\u2013" << first + count - 1;
  out << "</div>";
  if (lines) {
    out << "<div class=\"label\">before</div>" << CodeBlock(change->before, "before")
        << "<div class=\"label\">after</div>" << CodeBlock(change->after, "after");
  } else if (!at.text.empty()) {
    out << CodeBlock({at.text}, "");
  }
  if (change) out << "<p>" << EscapeHtml(change->advice) << "</p>";
  out << "</div>";
}

void RenderFindings(std::ostringstream& out, const RunReport& report) {
  out << "<section id=\"findings\"><h2>Findings</h2>\n";
  if (report.findings.empty()) {
    out << "<p>The rules raised no findings.</p></section>\n";
    return;
  }
  out << "<ol class=\"findings\">\n";
  // In the report's order: ranked where the rules and the autotest ran (RankFindings).
  for (const Finding& finding : report.findings) {
    const char* severity = SeverityName(finding.severity);
    out << "<li class=\"finding\"><div class=\"head\"><span class=\"badge " << severity << "\">"
        << severity << "</span>" << HtmlCode(finding.rule);
    if (!finding.path.empty()) out << " at " << HtmlCode(finding.path);
    if (!finding.op.empty()) out << " " << HtmlCode(finding.op);
    out << "</div><p>" << EscapeHtml(finding.message) << "</p><div class=\"facts\">";
    if (!finding.evidence.empty()) {
      out << "<span>evidence: " << EscapeHtml(finding.evidence) << "</span>";
    }
    if (finding.expected_gain_ms) {
      out << "<span>expected gain " << EscapeHtml(Ms(*finding.expected_gain_ms)) << "/step</span>";
    }
    if (finding.expected_saving_mb) {
      out << "<span>expected saving "
          << EscapeHtml(FormatNumber(*finding.expected_saving_mb) + " MB") << "</span>";
    }
    for (const std::string& recipe : RecipesOf(finding)) {
      out << "<span>recipe " << HtmlCode(recipe) << "</span>";
      if (const FixResult* fix = FixForRecipe(report, recipe)) {
        out << "<span>measured <span class=\"badge " << StatusClass(fix->status) << "\">"
            << EscapeHtml(FixOutcome(*fix)) << "</span></span>";
      }
    }
    out << "</div>";
    RenderWhatToChange(out, finding);
    out << "</li>\n";
  }
  out << "</ol></section>\n";
}

BarChart BenchmarkChart(const std::vector<FixResult>& fixes) {
  BarChart chart{
      "Step time before and after each fix: the step each compared (median, or mean "
      "where the step waits for its input), with min-max whiskers",
      {},
      {{"fill-baseline", "baseline"}}};
  for (const char* status : {"verified", "no-change", "rejected", "failed"}) {
    const bool present = std::any_of(fixes.begin(), fixes.end(), [status](const FixResult& fix) {
      return fix.status == status && BenchmarkMeasured(fix.candidate);
    });
    if (present)
      chart.legend.push_back({std::string("fill-") + status, std::string("fixed, ") + status});
  }
  const auto add = [&chart](const std::string& label, const FixResult& fix, const BenchStats& stats,
                            const std::string& fill, bool highlighted) {
    BarRow row{label, {}, kNotMeasured, label + ": not measured", highlighted};
    if (BenchmarkMeasured(stats)) {
      row.segments.push_back({ComparedStepMs(fix, stats), fill});
      row.whisker = ValueRange{stats.min_ms, stats.max_ms};
      row.value_text = Ms(ComparedStepMs(fix, stats)) + " " + fix.step_statistic;
      row.tooltip = label + ": mean " + Ms(stats.mean_ms) + ", median " + Ms(stats.median_ms) +
                    ", min " + Ms(stats.min_ms) + ", max " + Ms(stats.max_ms) + " over " +
                    std::to_string(stats.samples) + " samples";
    }
    chart.rows.push_back(std::move(row));
  };
  for (const FixResult& fix : fixes) {
    add(fix.recipe + " \u00b7 baseline", fix, fix.baseline, "fill-baseline", false);
    add(fix.recipe + " \u00b7 fixed", fix, fix.candidate, "fill-" + StatusClass(fix.status),
        fix.status == "verified");
    if (SpeedupMeasured(fix))
      chart.rows.back().value_text += " (" + FormatSpeedup(fix.speedup) + ")";
  }
  return chart;
}

// Samples per second against the input stage's worker count, the knee highlighted.
BarChart WorkerSeriesChart(const FixResult& fix) {
  BarChart chart{"Samples per second by input workers", {}, {}, AxisUnit::kSamplesPerSecond};
  for (const WorkerCountPoint& point : fix.worker_series) {
    if (!point.samples_per_s) continue;
    const bool knee = fix.knee_workers == point.workers;
    const std::string label = std::to_string(point.workers) + " workers";
    chart.rows.push_back(
        {label,
         {{*point.samples_per_s, knee ? "fill-chosen" : "fill-candidate"}},
         FormatNumber(*point.samples_per_s) + "/s (" + FormatSpeedup(point.speedup) + ")",
         label + ": " + Ms(point.step_ms) + " per step, " + FormatNumber(*point.samples_per_s) +
             " samples/s" + (knee ? ", the knee" : ""),
         knee});
  }
  return chart;
}

void RenderFixes(std::ostringstream& out, const RunReport& report) {
  // A run that ran out of memory shows its candidate-only runs in its own section.
  if (report.fixes.empty() || report.out_of_memory) return;
  out << "<section id=\"fixes\"><h2>Fixes tried</h2>\n"
      << RenderBarChartSvg(BenchmarkChart(report.fixes)) << "\n";
  HtmlTable(out, FixTable(report.fixes));
  RenderFixDetails(out, report.fixes);
  for (const FixResult& fix : report.fixes) {
    if (fix.worker_series.empty()) continue;
    out << "<p>The worker counts " << HtmlCode(fix.recipe) << " tried:</p>\n";
    const BarChart chart = WorkerSeriesChart(fix);
    if (!chart.rows.empty()) out << RenderBarChartSvg(chart) << "\n";
    HtmlTable(out, WorkerSeriesTable(fix));
  }
  for (const FixResult& fix : report.fixes) {
    if (fix.suggested_change.empty()) continue;
    out << "<p>The change " << HtmlCode(fix.recipe)
        << " asks of the code:</p><pre class=\"source\">" << EscapeHtml(fix.suggested_change)
        << "</pre>\n";
  }
  for (const FixResult& fix : report.fixes) {
    for (const MethodChange& change : fix.code_changes) {
      out << "<p>The TorchScript code " << HtmlCode(fix.recipe) << " changed in "
          << HtmlCode(change.module_type + "." + change.method) << ":</p><pre class=\"source\">"
          << EscapeHtml(change.diff) << "</pre>\n";
    }
    if (!fix.saved_model.empty()) {
      out << "<p>The model with " << HtmlCode(fix.recipe) << " applied is saved as "
          << HtmlCode(fix.saved_model) << ".</p>\n";
    }
  }
  out << "</section>\n";
}

// A snapshot's or a bisection's memory: the chart people look at, then the peak and what held it,
// memory per module instance, the OOMs.
void RenderMemory(std::ostringstream& out, const RunReport& report) {
  if (!report.memory || !report.memory->peak) return;
  const MemoryStats& memory = *report.memory;
  const MemoryPeak& peak = *memory.peak;
  out << "<section id=\"memory\"><h2>Memory</h2>\n";
  if (memory.history) {
    out << RenderMemoryChartSvg(*memory.history, peak) << "\n<p class=\"note\">Allocated memory "
        << "(the area: the highest in each stretch of the history) and reserved memory (the "
           "dashed line) over the snapshot's history; the peak is marked. Under it, the "
           "record_function ranges recorded with it: the phases, then the module instances by "
           "depth. docs/memory.md says how to read it.</p>\n";
  } else if (memory.timeline) {
    out << RenderStepMemoryChartSvg(*memory.timeline, peak) << "\n<p class=\"note\">Live memory "
        << "over the step of the peak, by what it turned out to be (the areas, stacked: each "
           "stretch of the step at its highest moment); the peak is marked and its holder named. "
           "Under it, the step's phases, then the calls of the instances the window instrumented "
           "(forward, then backward), the holder's highlighted. docs/memory.md says how to read "
           "it.</p>\n";
  }
  HtmlTable(out, MemoryPeakTable(memory));
  out << "<h3>Live at the peak, by category</h3>\n";
  HtmlTable(out, MemoryShareTable(peak.by_category, "allocated", false, peak.mb));
  if (!peak.by_user_frame.empty()) {
    out << "<h3>Live at the peak, by the line of your code that allocated it</h3>\n";
    HtmlTable(out, MemoryShareTable(peak.by_user_frame, "line", true, peak.mb));
  }
  if (!peak.by_module.empty()) {
    out << "<h3>Live at the peak, by module instance</h3>\n";
    HtmlTable(out, MemoryShareTable(peak.by_module, "module instance", true, peak.mb));
  }
  if (!memory.modules.empty()) {
    out << "<h3>Memory per module instance</h3>\n";
    HtmlTable(out, ModuleMemoryTable(memory.modules, kMemoryModulesShown));
  }
  if (memory.history && !memory.history->ooms.empty()) {
    out << "<h3>Out of memory</h3>\n";
    HtmlTable(out, OutOfMemoryTable(*memory.history));
  }
  out << "</section>\n";
}

void RenderGpu(std::ostringstream& out, const RunReport& report) {
  const bool window_memory = report.memory && ShowsAllocatorStats(*report.memory);
  if (!report.gpu && report.syncs.empty() && report.copies.empty() && !window_memory) return;
  out << "<section id=\"gpu\"><h2>GPU</h2>\n";
  if (report.gpu) {
    HtmlTable(out, GpuTable(*report.gpu));
  } else {
    out << "<p class=\"note\">GPU time was " << kNotMeasured << ": no GPU probe ran.</p>\n";
  }
  if (!report.syncs.empty()) {
    out << "<h3>Host-device synchronisations</h3>\n";
    HtmlTable(out, SyncTable(report.syncs));
  }
  if (!report.copies.empty()) {
    out << "<h3>Host-to-device copies every step</h3>\n";
    HtmlTable(out, CopyTable(report.copies));
  }
  if (window_memory) {
    out << "<h3>Device memory</h3>\n";
    HtmlTable(out, MemoryTable(*report.memory));
  }
  out << "</section>\n";
}

void RenderOps(std::ostringstream& out, const RunReport& report) {
  if (report.ops.empty()) return;
  out << "<section id=\"ops\"><h2>Top ops of the step</h2>\n";
  HtmlTable(out, OpTable(report.ops, GpuMeasured(report), PageFaultsCounted(report), kTopOpsShown));
  out << "</section>\n";
}

void RenderMeasurement(std::ostringstream& out, const RunReport& report) {
  out << "<section id=\"run\"><h2>What was measured on what</h2>\n";
  HtmlTable(out, RunTable(report.run, GpuMeasured(report)));
  if (!AbsentSectionOf(report, "cross_check")) {
    out << "<p><span class=\"note\">Cross-check:</span> "
        << EscapeHtml(CrossCheckSentence(report.cross_check)) << "</p>\n";
  }
  out << "<h3>Data quality</h3>\n";
  if (report.data_quality.empty()) {
    out << "<p>No problems were recorded.</p>\n";
  } else {
    out << "<ul class=\"quality\">\n";
    for (const std::string& line : report.data_quality)
      out << "<li>" << EscapeHtml(line) << "</li>\n";
    out << "</ul>\n";
  }
  if (!report.absent.empty()) {
    out << "<h3>Not in this report</h3>\n<ul class=\"quality\">\n";
    for (const AbsentSection& absent : report.absent) {
      out << "<li>" << HtmlCode(absent.section) << ": " << EscapeHtml(absent.reason) << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "</section>\n";
}

}  // namespace

std::string ReportToHtml(const RunReport& report) {
  std::ostringstream out;
  HtmlPageHead(out, "advisor: " + report.run.model);
  RenderHeader(out, report);
  RenderSummary(out, report);
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
  RenderModules(out, report);
  RenderFindings(out, report);
  RenderFixes(out, report);
  RenderGpu(out, report);
  RenderOps(out, report);
  RenderMeasurement(out, report);
  out << "<footer>advisor " << EscapeHtml(report.run.advisor_version)
      << " \u00b7 report.json schema " << kReportSchemaVersion << " \u00b7 wall time "
      << EscapeHtml(FormatSeconds(report.run.wall_s)) << "</footer>\n</main></body></html>\n";
  return out.str();
}

}  // namespace advisor
