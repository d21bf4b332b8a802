#include "engine/report/compile_section.h"

#include "engine/report/format.h"

namespace advisor {
namespace {

using Style = TableCell::Style;

std::string Counted(std::size_t count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string Where(const std::string& file, int line) { return file + ":" + std::to_string(line); }

std::string LevelName(const std::string& path) { return path.empty() ? "the model" : path; }

// That the measurement changed the compilation, and what the change cost.
std::string RegionalSentence(const RegionalCompile& regional) {
  std::string levels;
  for (const std::string& path : regional.levels) {
    levels += (levels.empty() ? "" : ", ") + LevelName(path);
  }
  std::string sentence =
      "advisor measured inside the compiled model with regional compilation (" + levels +
      "): the module measured and those above it ran eagerly and each instance beside them was "
      "compiled alone with the script's options, so no kernel was fused across instances as the "
      "whole model's compilation fuses them, and the levels' times are of that compilation; "
      "the regions took " +
      Counted(static_cast<std::size_t>(regional.compilations), "compilation", "compilations") +
      " and " + FormatSeconds(regional.compile_s) +
      ", in the windows' warm-up steps (not measured, not in the seconds above)";
  if (regional.in_measured_steps > 0) {
    sentence += ", but " + std::to_string(regional.in_measured_steps) +
                " compiled again inside measured steps, whose times include them";
  }
  sentence += ".";
  for (const EagerRegion& region : regional.eager) {
    sentence += " " + region.path + " ran eagerly: dynamo could not compile it alone (" +
                region.reason + ").";
  }
  return sentence;
}

}  // namespace

std::string CompileSentence(const CompileReport& compile) {
  std::size_t recompiles = 0;
  for (const Recompile& recompile : compile.recompiles) recompiles += recompile.count;
  std::string sentence = "torch.compile made " + Counted(compile.graphs, "graph", "graphs") +
                         " in " + FormatSeconds(compile.compile_s) +
                         " of compilation (dynamo's tracing and the backend's compile, as torch "
                         "measured them), with " +
                         Counted(compile.graph_breaks.size(), "graph break", "graph breaks") +
                         " and " + Counted(recompiles, "recompilation", "recompilations");
  if (!compile.recompile_limit_hits.empty()) {
    sentence += "; " + Counted(compile.recompile_limit_hits.size(), "function", "functions") +
                " reached the recompile limit and ran eagerly after it";
  }
  sentence += ".";
  if (compile.regional) sentence += " " + RegionalSentence(*compile.regional);
  return sentence;
}

std::string CudaGraphsSentence(const CudaGraphs& graphs) {
  std::string sentence =
      "CUDA graphs (inductor's, as in mode=\"reduce-overhead\"): " +
      Counted(static_cast<std::size_t>(graphs.recordings), "capture", "captures") + " of " +
      Counted(graphs.functions.size(), "graph", "graphs") + " by step " +
      std::to_string(graphs.step);
  std::string again;
  for (const CudaGraphFunction& function : graphs.functions) {
    if (function.later_steps == 0) continue;
    again += (again.empty() ? "" : ", ") + function.function + " (" + function.mode +
             ") captured again in " +
             Counted(static_cast<std::size_t>(function.later_steps), "later step", "later steps");
    if (!function.rerecord_reason.empty()) again += " (torch: " + function.rerecord_reason + ")";
  }
  if (!again.empty()) {
    sentence += "; " + again;
  } else if (graphs.recordings > 0) {
    sentence += ", none captured again in a later step";
  }
  if (!graphs.skipped.empty()) {
    std::size_t skips = 0;
    std::string reasons;
    for (const CudaGraphSkip& skip : graphs.skipped) {
      skips += static_cast<std::size_t>(skip.count);
      reasons += (reasons.empty() ? "" : "; ") + skip.reason + ", " +
                 Counted(static_cast<std::size_t>(skip.count), "time", "times");
    }
    sentence += "; skipped " + Counted(skips, "time", "times") + ": " + reasons;
  }
  return sentence + ".";
}

Table CompileTable(const CompileReport& compile) {
  Table table{{"what", "where", "why", "times"}, {false, false, false, true}, {}};
  const auto row = [&table](const std::string& what, const std::string& where,
                            const std::string& why, int times) {
    table.rows.push_back({{{what, Style::kText},
                           {where, Style::kCode},
                           {why, Style::kText},
                           {std::to_string(times), Style::kText}}});
  };
  for (const GraphBreak& graph_break : compile.graph_breaks) {
    row("graph break", Where(graph_break.file, graph_break.line), graph_break.reason,
        graph_break.count);
  }
  for (const Recompile& recompile : compile.recompiles) {
    row("recompilation of " + recompile.function, Where(recompile.file, recompile.line),
        recompile.guard, recompile.count);
  }
  for (const RecompileLimitHit& hit : compile.recompile_limit_hits) {
    row("recompile limit of " + hit.function, Where(hit.file, hit.line),
        "reached the limit of " + std::to_string(hit.limit) + ": runs eagerly from then on", 1);
  }
  return table;
}

}  // namespace advisor
