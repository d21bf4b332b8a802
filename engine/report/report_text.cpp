#include "engine/report/report_text.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/model/measured.h"
#include "engine/report/format.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

std::string Ms(double ms) { return FormatNumber(ms) + " ms"; }

}  // namespace

bool ModuleOutweighsItsOp(const Hotspot& hotspot) {
  // Five points of the step: below that the op's share already says what the module holds.
  return hotspot.module_share >= hotspot.share + 0.05;
}

std::string MadeBy(const Hotspot& hotspot, const InlineMarkup& markup) {
  if (hotspot.forward_op.empty() || hotspot.forward_op == hotspot.op) return "";
  std::string made_by = " (made by " + markup.code(hotspot.forward_op);
  for (const OpTime& op : hotspot.top_ops) {
    if (op.name == hotspot.forward_op && op.phase == "forward") {
      made_by += ", itself " + Ms(op.ms) + " per step";
      break;
    }
  }
  return made_by + ")";
}

namespace {

std::string StepSentence(const RunReport& report, const InlineMarkup& markup) {
  const RunInfo& run = report.run;
  const StepBreakdown& step = report.step;
  std::string device = run.device_name.empty() ? run.device : run.device_name;
  // The phases are of the profiled mean step: where that step is far from the unprofiled one
  // (a loaded machine, a short warm-up), say so, or the phases would not add up to the step.
  const bool profiled_apart = step.profiled_ms > 0 && step.median_ms > 0 &&
                              std::abs(step.profiled_ms / step.median_ms - 1.0) > 0.1;
  // Steps that wait in bursts (a DataLoader's) leave the median step far below what a run takes
  // per step: then both are said.
  const bool bursty = StepsWaitInBursts(step);
  return "A training step of " + markup.code(run.model) + " takes " + Ms(step.median_ms) +
         " (median of " + std::to_string(run.window_steps) + " steps on " + markup.text(device) +
         ")" +
         (bursty ? "; " + Ms(step.mean_ms) + " on average, some steps far longer than most"
                 : std::string()) +
         (profiled_apart ? "; profiled, a step took " + Ms(step.profiled_ms) + " on average"
                         : std::string()) +
         ": forward " + Ms(step.forward_ms) +
         (step.loss_ms ? ", loss " + Ms(*step.loss_ms) : std::string()) + ", backward " +
         Ms(step.backward_ms) + ", optimizer " + Ms(step.optimizer_ms) +
         (step.evaluation_ms > 0
              ? ", and " + Ms(step.evaluation_ms) + " of evaluation between steps"
              : std::string()) +
         "." +
         (step.graphed_median_ms ? " Replayed as a CUDA graph, as the workload runs it, it takes " +
                                       Ms(*step.graphed_median_ms) +
                                       "; the rest of this report profiles the step run eagerly."
                                 : "");
}

// "blocks → blocks.5 → blocks.5.mlp": the modules bisection descended through.
std::string DescentPath(const std::vector<BisectLevel>& levels, const InlineMarkup& markup) {
  std::string path;
  for (const BisectLevel& level : levels) {
    if (level.chosen.empty()) continue;
    if (!path.empty()) path += " \u2192 ";
    path += markup.code(level.chosen);
  }
  return path;
}

std::string HotspotSentence(const RunReport& report, const InlineMarkup& markup) {
  if (!report.hotspot) {
    std::string sentence = "No single hot spot was isolated";
    if (!report.levels.empty() && !report.levels.back().reason.empty()) {
      sentence += ": " + markup.text(report.levels.back().reason);
    }
    sentence += ".";
    if (!report.doubts.empty()) sentence += " " + markup.text(LowConfidenceSentence(report));
    return sentence;
  }
  const Hotspot& hotspot = *report.hotspot;
  std::string sentence = "The hot spot is " + markup.code(hotspot.path) + " \u2192 " +
                         markup.code(hotspot.op) + MadeBy(hotspot, markup);
  sentence += " in the " + markup.text(hotspot.phase) + " pass: " + Ms(hotspot.ms) + " per step, " +
              FormatShare(hotspot.share) + " of the step.";
  if (ModuleOutweighsItsOp(hotspot)) {
    sentence += " The module's forward and backward take " + Ms(hotspot.module_ms) + ", " +
                FormatShare(hotspot.module_share) + " of the step.";
  }
  const std::string descent = DescentPath(report.levels, markup);
  if (!descent.empty()) {
    // As many as the path shows (a level that stopped the descent chose nothing).
    const auto descended =
        std::count_if(report.levels.begin(), report.levels.end(),
                      [](const BisectLevel& level) { return !level.chosen.empty(); });
    sentence += " Bisection descended " + std::to_string(descended) +
                (descended == 1 ? " level: " : " levels: ") + descent + ".";
  }
  if (hotspot.confidence == "low") {
    sentence += " " + markup.text(LowConfidenceSentence(report));
  }
  return sentence;
}

std::string FindingsSentence(const std::vector<Finding>& findings) {
  if (findings.empty()) return "The rules raised no findings.";
  std::string counts;
  for (Severity severity : {Severity::kHigh, Severity::kMedium, Severity::kLow}) {
    const auto n = std::count_if(findings.begin(), findings.end(),
                                 [severity](const Finding& f) { return f.severity == severity; });
    if (n == 0) continue;
    if (!counts.empty()) counts += ", ";
    counts += std::to_string(n) + " " + SeverityName(severity);
  }
  return "The rules raised " + std::to_string(findings.size()) +
         (findings.size() == 1 ? " finding (" : " findings (") + counts + ").";
}

// "train.py:21 (`pos = ...`)": a line of the user's code as the first sentence names it.
std::string LineText(const SourceLocation& source, const InlineMarkup& markup) {
  const std::size_t slash = source.file.rfind('/');
  const std::string file = slash == std::string::npos ? source.file : source.file.substr(slash + 1);
  return markup.code(file + ":" + std::to_string(source.line)) +
         (source.text.empty() ? "" : " (" + markup.code(source.text) + ")");
}

// The line of `lines` a finding names in its source; nullptr where it names none of them.
const SourceLine* LineOfFinding(const std::vector<SourceLine>& lines, const Finding& finding) {
  if (!finding.source) return nullptr;
  for (const SourceLine& line : lines) {
    if (line.source.file == finding.source->file && line.source.line == finding.source->line) {
      return &line;
    }
  }
  return nullptr;
}

// The first sentence, where the rules' first finding is a cost of the user's own code that the
// step's phases and the hot spot undersell (issue #33): the loss computed outside the model
// (costly-loss), a Python loop in a module's forward (python-loop), or a broadcast temporary
// reduced right after (broadcast-temporary), with its share of the step and the line the finding
// names. "" otherwise.
std::string AvoidableCostSentence(const RunReport& report, const InlineMarkup& markup) {
  if (report.findings.empty()) return "";
  const Finding& top = report.findings.front();  // ranked (RankFindings)
  if (top.rule == "costly-loss" && report.loss) {
    const LossCost& loss = *report.loss;
    std::string sentence = "The biggest avoidable cost is the loss, computed outside the model: " +
                           FormatShare(loss.share) + " of the step (" + Ms(loss.ms) +
                           " from the forward's return to backward(), " + Ms(loss.backward_ms) +
                           " in the backward of its ops)";
    if (const SourceLine* line = LineOfFinding(loss.lines, top)) {
      sentence += ", " + FormatShare(line->share) + " at " + LineText(line->source, markup);
    }
    return sentence + ".";
  }
  if (top.rule == "broadcast-temporary") {
    const auto temporary = std::find_if(
        report.broadcasts.begin(), report.broadcasts.end(),
        [&](const BroadcastTemporary& b) { return b.path == top.path && b.op == top.op; });
    if (temporary != report.broadcasts.end() && temporary->input_elements > 0) {
      return "The biggest avoidable cost is a broadcast temporary in " + markup.code(top.path) +
             "'s forward" + (top.source ? ", " + LineText(*top.source, markup) : "") + ": " +
             markup.code(top.op) + " writes " +
             Printf("%.0fx", static_cast<double>(temporary->elements) /
                                 static_cast<double>(temporary->input_elements)) +
             " the elements of its largest input, and with the ops that read it takes " +
             FormatShare(temporary->share) + " of the step.";
    }
  }
  if (top.rule == "python-loop" && report.hotspot) {
    if (const SourceLine* line = LineOfFinding(report.hotspot->lines, top)) {
      const std::string where = markup.code(top.path) +
                                "'s forward: " + LineText(line->source, markup) + " takes " +
                                FormatShare(line->share) + " of the step, ";
      const std::string ops = std::to_string(std::lround(line->ops));
      // A finding that names an op is a loop whose time is that one costly op, repeated
      // (rules/python_loop.lua); one that names none, a loop of small ops.
      const auto costly =
          std::find_if(line->op_kinds.begin(), line->op_kinds.end(),
                       [&top](const LineOpKind& kind) { return kind.name == top.op; });
      if (costly == line->op_kinds.end()) {
        return "The biggest avoidable cost is a Python loop in " + where + ops +
               " small ops a step.";
      }
      return "The biggest avoidable cost is a loop in " + where + "repeating " +
             markup.code(top.op) + " (" + FormatShare(costly->share) + " of its ops' time) among " +
             ops + " ops a step.";
    }
  }
  return "";
}

std::string FixesSentence(const std::vector<FixResult>& fixes, const InlineMarkup& markup) {
  if (fixes.empty()) return "";
  const FixResult* best = nullptr;
  for (const FixResult& fix : fixes) {
    if (fix.status != "verified" || !SpeedupMeasured(fix)) continue;
    if (!best || fix.speedup > best->speedup) best = &fix;
  }
  if (!best) {
    return " None of the " + std::to_string(fixes.size()) + " fixes tried was verified.";
  }
  return " The best verified fix, " + markup.code(best->recipe) + ", made the step " +
         FormatSpeedup(best->speedup) + " faster.";
}

}  // namespace

std::string LowConfidenceSentence(const RunReport& report) {
  std::string reasons;
  for (const std::string& doubt : report.doubts) {
    reasons += (reasons.empty() ? "" : "; ") + doubt;
  }
  std::string sentence = "Confidence is low" + (reasons.empty() ? "" : ": " + reasons) + ".";
  if (report.hotspot && !report.hotspot->candidates.empty()) {
    std::string names;
    for (const std::string& candidate : report.hotspot->candidates) {
      names += (names.empty() ? "" : ", ") + candidate;
    }
    sentence += " It could not rule out " + names + ".";
  }
  return sentence;
}

std::string FreshPagesSentence(const Hotspot& hotspot, const InlineMarkup& markup) {
  for (const OpTime& op : hotspot.top_ops) {
    if (op.name == hotspot.op || op.ms <= hotspot.ms || op.page_fault_ms <= 0) continue;
    return "Ops rank by their time less first touches of fresh memory pages: " +
           markup.code(op.name) + " (" + markup.text(op.phase) + ") took " + FormatNumber(op.ms) +
           " ms a step, " + FormatNumber(op.page_fault_ms) + " ms of it page faults.";
  }
  return "";
}

std::string OpLinesSentence(const Hotspot& hotspot, const InlineMarkup& markup) {
  if (hotspot.op_lines.size() < 2) return "";
  constexpr std::size_t kShown = 4;
  std::string sentence = markup.code(hotspot.op) + " ran at " +
                         std::to_string(hotspot.op_lines.size()) +
                         " lines of your code, the source above the costliest: ";
  for (std::size_t i = 0; i < hotspot.op_lines.size() && i < kShown; ++i) {
    const OpLine& line = hotspot.op_lines[i];
    if (i > 0) sentence += "; ";
    sentence += markup.code(line.source.file + ":" + std::to_string(line.source.line));
    // The op that made it, where it is not the one the hot spot names (a dropout's beside a
    // product's aten::mul).
    if (!line.forward_op.empty() && line.forward_op != hotspot.op &&
        line.forward_op != hotspot.forward_op) {
      sentence += " (by " + markup.code(line.forward_op) + ")";
    }
    sentence += " " + Ms(line.ms) + " per step, " + FormatShare(line.share) + " of it";
  }
  if (hotspot.op_lines.size() > kShown) {
    sentence += "; " + std::to_string(hotspot.op_lines.size() - kShown) + " more";
  }
  return sentence + ".";
}

std::string MemorySentence(const RunReport& report, const InlineMarkup& markup) {
  const MemoryStats& memory = *report.memory;
  const MemoryPeak& peak = *memory.peak;
  const auto mb = [](double value) { return FormatNumber(value) + " MB"; };
  std::string sentence = "The allocator's history in " + markup.code(report.run.model) + " (" +
                         markup.text(report.run.device_name);
  if (memory.history) sentence += ", " + std::to_string(memory.history->events) + " events";
  sentence += ") peaks at " + mb(peak.mb) + " allocated";
  if (!peak.phase.empty()) sentence += " in the " + markup.text(peak.phase) + " pass";
  sentence += ", with " + mb(peak.reserved_mb) + " reserved.";
  if (!peak.by_category.empty() && peak.mb > 0) {
    static const std::map<std::string, std::string> kWhen = {
        {"before_history", "before the history began"},
        {"forward", "in a forward pass"},
        {"backward", "in a backward pass"},
        {"optimizer", "in an optimizer step"},
        {"unknown", "where neither ranges nor frames tell when"}};
    const MemoryShare& most = peak.by_category.front();
    const auto when = kWhen.find(most.name);
    sentence += " " + FormatShare(most.mb / peak.mb) + " of it was allocated " +
                (when != kWhen.end() ? when->second : markup.text(most.name)) + ".";
  }
  if (!peak.path.empty()) {
    sentence += " The module instance holding the most is " + markup.code(peak.path) + ".";
  }
  if (memory.history && !memory.history->ooms.empty()) {
    const std::size_t n = memory.history->ooms.size();
    sentence += " " + std::to_string(n) + (n == 1 ? " allocation" : " allocations") +
                " failed: out of memory.";
  }
  return sentence;
}

std::string AsIs(const std::string& text) { return text; }

namespace {

// Where it failed: "in the forward pass of `blocks.2` at `train.py:41` (`...`)".
std::string OutOfMemoryPlace(const OutOfMemoryFailure& failure, const InlineMarkup& markup) {
  std::string where = failure.phase.empty() ? "" : "in the " + markup.text(failure.phase) + " pass";
  if (!failure.path.empty()) {
    where += (where.empty() ? "in " : " of ") + markup.code(failure.path);
  }
  if (failure.source) where += (where.empty() ? "at " : " at ") + LineText(*failure.source, markup);
  return where.empty() ? "where the probe could not tell" : where;
}

}  // namespace

std::string OutOfMemoryWhere(const OutOfMemoryFailure& failure, const InlineMarkup& markup) {
  const std::string holder = OutOfMemoryHolder(failure, markup);
  return OutOfMemoryPlace(failure, markup) + (holder.empty() ? "" : "; " + holder);
}

std::string OutOfMemoryHolder(const OutOfMemoryFailure& failure, const InlineMarkup& markup) {
  if (!failure.live || failure.live->path.empty() || failure.live->by_module.empty()) return "";
  const MemoryPeak& live = *failure.live;
  double kept_mb = 0;
  for (const MemoryShare& kept : failure.kept_for_backward) kept_mb += kept.mb;
  std::string holder = markup.code(live.path) + " kept the most for backward (" +
                       FormatNumber(live.by_module.front().mb) + " of the " +
                       FormatNumber(kept_mb) + " MB the graphs kept";
  if (!live.tied_with.empty()) {
    holder += ", as much as " + markup.code(live.tied_with.front());
    if (live.tied_with.size() > 1) {
      holder += " and " + std::to_string(live.tied_with.size() - 1) + " more";
    }
  }
  return holder + ")";
}

std::string OutOfMemoryFixesSentence(const std::vector<FixResult>& fixes,
                                     const InlineMarkup& markup) {
  std::vector<std::string> fitting;
  for (const FixResult& fix : fixes) {
    if (!fix.candidate_only || fix.status != "fits") continue;
    std::string fits = markup.code(fix.recipe) + " fits (";
    if (fix.peak_memory_mb) fits += "peak " + FormatNumber(*fix.peak_memory_mb) + " MB, ";
    fitting.push_back(fits + Ms(ComparedStepMs(fix, fix.candidate)) + " a step)");
  }
  if (!fitting.empty()) {
    std::string sentence = "Run alone under the same limits, ";
    for (std::size_t i = 0; i < fitting.size(); ++i) {
      sentence += (i == 0 ? "" : i + 1 == fitting.size() ? " and " : ", ") + fitting[i];
    }
    return sentence + "; no speedup is measured: the run without it does not fit.";
  }
  const long tried = std::count_if(fixes.begin(), fixes.end(), [](const FixResult& fix) {
    return fix.candidate_only && fix.status != "skipped";
  });
  if (tried == 0) return "";
  return "None of the " + std::to_string(tried) + (tried == 1 ? " fix" : " fixes") +
         " run alone under the same limits fits.";
}

std::string OutOfMemorySentence(const OutOfMemoryFailure& failure, const InlineMarkup& markup) {
  const auto mb = [](double value) { return FormatNumber(value) + " MB"; };
  std::string sentence = "The run failed: out of memory after " +
                         std::to_string(failure.steps_done) + " training steps, " +
                         OutOfMemoryPlace(failure, markup);
  if (!failure.op.empty()) sentence += ", in " + markup.code(failure.op);
  sentence += failure.requested_mb ? ", asking for " + mb(*failure.requested_mb) + "." : ".";
  if (const std::string holder = OutOfMemoryHolder(failure, markup); !holder.empty()) {
    sentence += " " + holder + ".";
  }
  if (const auto& allocator = failure.allocator) {
    sentence += " Tensors held " + mb(allocator->allocated_mb) + " and the allocator reserved " +
                mb(allocator->reserved_mb) + " (" +
                mb(allocator->reserved_mb - allocator->allocated_mb) + " cached but unused";
    if (allocator->largest_free_block_mb) {
      sentence += ", the largest free block " + mb(*allocator->largest_free_block_mb);
    }
    sentence += ")";
    if (allocator->device_free_mb) {
      sentence += "; the device had " + mb(*allocator->device_free_mb) + " free of " +
                  mb(allocator->device_total_mb);
    }
    sentence += ".";
  } else {
    sentence += " The allocator's state was not measured (not a CUDA device).";
  }
  return sentence;
}

std::string SummaryParagraph(const RunReport& report, const InlineMarkup& markup) {
  if (report.out_of_memory) {
    const std::string fixes = OutOfMemoryFixesSentence(report.fixes, markup);
    return OutOfMemorySentence(*report.out_of_memory, markup) + " " +
           FindingsSentence(report.findings) + (fixes.empty() ? "" : " " + fixes);
  }
  if (AbsentSectionOf(report, "step") && report.memory && report.memory->peak) {
    return MemorySentence(report, markup) + " " + FindingsSentence(report.findings);
  }
  const std::string hotspot =
      AbsentSectionOf(report, "hotspot") ? "" : HotspotSentence(report, markup) + " ";
  const std::string avoidable = AvoidableCostSentence(report, markup);
  return (avoidable.empty() ? "" : avoidable + " ") + StepSentence(report, markup) + " " + hotspot +
         FindingsSentence(report.findings) + FixesSentence(report.fixes, markup);
}

bool HotspotByProvenance(const RunReport& report) {
  return !report.levels.empty() && report.levels.back().measured_by == LevelMeasure::kProvenance;
}

std::string NoSourceSentence(const RunReport& report) {
  if (HotspotByProvenance(report)) {
    return "Not read: the levels inside the compiled model came from inductor's kernel "
           "provenance, and reading the instance's lines would run it eagerly under regional "
           "compilation, changing what was measured.";
  }
  return report.run.mode == Door::kScript
             ? "No line of your code ran this op in the steps whose lines were read (the autograd "
               "engine runs some ops on its own: the sums of two gradients of one tensor)."
             : "The archive holds no source for this op.";
}

std::string LossSentence(const LossCost& loss) {
  return "From the model's forward returning to backward(), the script's own code (its loss, "
         "metrics, logging) ran " +
         Ms(loss.ms) + " a step, and the backward of its ops " + Ms(loss.backward_ms) + ": " +
         FormatShare(loss.share) + " of the step." +
         (loss.lines.empty() ? std::string()
                             : " Its lines, each with its part of that time (its own, the lines "
                               "it calls apart, and its ops' backward):");
}

std::string DistributedSentence(const DistributedSummary& distributed, const InlineMarkup& markup) {
  std::string sentence = std::to_string(distributed.ranks.size()) + " ranks measured";
  if (distributed.world_size > static_cast<int>(distributed.ranks.size())) {
    sentence += " of " + std::to_string(distributed.world_size);
  }
  if (!distributed.nodes.empty()) {
    sentence += " on " + std::to_string(distributed.nodes.size()) + " nodes";
  }
  sentence += "; " + std::to_string(distributed.collectives_matched) +
              " collectives matched across them, skew " + Ms(distributed.skew_median_ms) +
              " (median), " + Ms(distributed.skew_max_ms) + " (largest).";
  for (const NodeInfo& node : distributed.nodes) {
    if (node.node == 0) continue;
    sentence += " Node " + std::to_string(node.node) + "'s clock less node 0's: " +
                (node.clock_samples > 0
                     ? Ms(node.clock_offset_ms) + " (spread " + Ms(node.clock_spread_ms) +
                           " over " + std::to_string(node.clock_samples) + " collectives)."
                     : std::string("not estimated (no collective matched)."));
  }
  const std::optional<Straggler>& straggler = distributed.straggler;
  if (!straggler) return sentence + " No rank was consistently the last to arrive.";
  const std::string arrival = "reached " + FormatShare(straggler->last_share) + " of them last, " +
                              Ms(straggler->late_ms) + " per step later than the earliest rank";
  if (!straggler->holds_unprofiled.value_or(true)) {
    return sentence + " Rank " + std::to_string(straggler->rank) + " " + arrival +
           " in the profiled steps, but the steps timed without a profiler do not show it: no "
           "straggler (see Data quality).";
  }
  sentence += " Rank " + std::to_string(straggler->rank) + " is the straggler: it " + arrival;
  if (straggler->unprofiled_excess_ms) {
    sentence += " (its data wait and forward " + Ms(*straggler->unprofiled_excess_ms) +
                " longer than the other ranks' in the steps timed without a profiler too)";
  }
  if (!straggler->path.empty()) {
    sentence += "; on it " + markup.code(straggler->path) +
                (straggler->path_by_wall_time ? "'s forward lasts " : " costs ") +
                Ms(straggler->path_excess_ms) + " per step more than on the other ranks" +
                (straggler->path_by_wall_time ? " on the host's clock, beyond its ops' time" : "");
  }
  if (!straggler->op.empty()) {
    sentence += "; the op furthest behind is " + markup.code(straggler->op) + " (" +
                markup.text(straggler->op_phase) + ", +" + Ms(straggler->op_excess_ms) + ")";
  }
  return sentence + ".";
}

std::string InputStageSentence(const DataWait& data, const InlineMarkup& markup) {
  const InputStageProfile& stage = *data.stage;
  const bool on_step = data.workers && *data.workers == 0;
  std::string sentence = std::string(on_step ? "The step prepared each batch itself (0 workers) in "
                                             : "One worker prepared a batch in ") +
                         Ms(stage.batch_ms) + " (median of " + std::to_string(stage.batches) +
                         " batches";
  if (!stage.output_shape.empty()) {
    sentence += "; it makes " + FormatShape(stage.output_shape);
    if (!stage.output_dtype.empty()) sentence += " " + markup.code(stage.output_dtype);
  }
  sentence += ")";
  if (!on_step) {
    sentence += data.workers && stage.worker_busy_share
                    ? ". The " + std::to_string(*data.workers) + " workers were busy " +
                          FormatShare(*stage.worker_busy_share) + " of the measured window"
                    : ". Worker utilisation was not measured";
  }
  if (stage.cores > 0) sentence += ", on " + std::to_string(stage.cores) + " cores";
  return sentence + ".";
}

const AbsentSection* AbsentSectionOf(const RunReport& report, const std::string& section) {
  for (const AbsentSection& absent : report.absent) {
    if (absent.section == section) return &absent;
  }
  return nullptr;
}

std::string LevelTitle(const BisectLevel& level, const InlineMarkup& markup) {
  return "Level " + std::to_string(level.depth) + ": children of " +
         (level.parent.empty() ? std::string("the model") : markup.code(level.parent));
}

std::string CrossCheckSentence(const CrossCheck& check) {
  if (check.backward_ops_checked == 0) return "no backward op could be cross-checked.";
  return std::to_string(check.backward_ops_agreeing) + " of " +
         std::to_string(check.backward_ops_checked) +
         " backward ops have the same module by sequence number as by markers (" +
         FormatShare(static_cast<double>(check.backward_ops_agreeing) /
                     check.backward_ops_checked) +
         "); " + std::to_string(check.backward_ops_without_forward) +
         " had no forward op to compare with.";
}

const FixResult* FixForRecipe(const RunReport& report, const std::string& recipe) {
  if (recipe.empty()) return nullptr;
  for (const FixResult& fix : report.fixes) {
    if (fix.recipe == recipe) return &fix;
  }
  return nullptr;
}

std::string SpeedupText(const FixResult& fix) {
  if (!SpeedupMeasured(fix)) return "";
  std::vector<std::string> notes;
  if (SpeedupConfidenceMeasured(fix)) {
    notes.push_back("95% interval " + FormatSpeedup(*fix.speedup_ci_low) + "\u2013" +
                    FormatSpeedup(*fix.speedup_ci_high));
  }
  if (fix.rounds > 0) {
    notes.push_back(std::to_string(fix.rounds) + (fix.rounds == 1 ? " round" : " rounds") +
                    (fix.measured_in == measured_in::kProcess ? " in one run" : ""));
  }
  std::string text = FormatSpeedup(fix.speedup);
  for (std::size_t i = 0; i < notes.size(); ++i) {
    text += (i == 0 ? " (" : ", ") + notes[i] + (i + 1 == notes.size() ? ")" : "");
  }
  return text;
}

std::string FixOutcome(const FixResult& fix) {
  if (!SpeedupMeasured(fix)) return fix.status;
  const std::string speedup = SpeedupText(fix);
  const std::size_t ratio_end = speedup.find(' ');
  return fix.status + ": " + speedup.substr(0, ratio_end) + (fix.speedup >= 1 ? " faster" : "") +
         speedup.substr(ratio_end);
}

}  // namespace advisor
