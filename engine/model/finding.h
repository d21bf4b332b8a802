// One piece of advice a rule produced from measured facts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace advisor {

enum class Severity { kLow, kMedium, kHigh };

// A line of the user's code: of the model's source (from the archive's debug info) or script.
struct SourceLocation {
  std::string file;
  int line = 0;
  std::string text;  // the source line, trimmed, where the archive has it
};

// The change a person makes to their own code for a finding's recipe, where the recipe needs one
// (engine/script/code_change.h says which): in words, and where the code's shape is one advisor
// knows, the lines it replaces and what replaces them. The lines are trimmed: a person applies
// the change keeping the indentation.
struct CodeChange {
  std::string advice;               // what to do, naming the file and line
  int first_line = 0;               // the first line `before` holds; 0 when the change is in words
  std::vector<std::string> before;  // the user's lines as they are
  std::vector<std::string> after;   // what replaces them
  // What of the user's code the change cannot keep (a mask applied to the weights, the weights
  // used afterwards), said plainly; "" when it keeps everything. A change that cannot keep
  // something has no lines: the advice says what to do by hand.
  std::string cannot_keep;
};

struct Finding {
  std::string rule;      // the rule's id
  Severity severity = Severity::kLow;
  std::string path;      // module instance path, "" when the finding is about the whole step
  std::string op;        // op name, "" when none
  std::string message;   // what is wrong and what to do, one or two sentences
  std::string evidence;  // the measured numbers that made the rule fire
  std::string recipe;    // id of the recipe that fixes it, "" when none exists
  std::optional<double> expected_gain_ms;  // per step, where the rule can estimate it
  // The torch version the recipe needs, where that is newer than the run's: the advice does not
  // fit this run as it is (FitFindingsToTorch). "" when it fits or nothing is known.
  std::string needs_torch;
  // Further recipes of a finding merged from several of one rule and module (MergeFindings):
  // fp32-matmul offers bf16 autocast and TF32, and the autotester measures each.
  std::vector<std::string> also_recipes;
  // Where the finding's op (or module) is in the user's code, outside torch's package; set after
  // the rules ran (LocateFindings, engine/bisect/finding_sources.h). Absent when unknown.
  std::optional<SourceLocation> source;
  // The change to make at `source`, for a recipe a person applies by editing their code (a graph
  // rewrite: a script cannot get it any other way); set with `source`. Absent otherwise.
  std::optional<CodeChange> change;
  // The memory the fix would free at the peak, in MB, where the rule can estimate it (the
  // out-of-memory rules: what would make the failed allocation fit).
  std::optional<double> expected_saving_mb;
};

// The order findings are reported in: advice the run's torch can take first (needs_torch
// empty), then the most severe; within one severity the larger expected gain first, findings
// without an estimate after those with one; otherwise the rules' order. After the autotest,
// measured fixes lead (LeadWithMeasuredFixes, engine/autotest/advice_fit.h).
void RankFindings(std::vector<Finding>& findings);

// recipe, then also_recipes: every recipe the finding names; empty when none.
std::vector<std::string> RecipesOf(const Finding& finding);

// "high", "medium", "low": the spelling rules use and report.json writes.
const char* SeverityName(Severity severity);

// The inverse of SeverityName; nullopt for anything else (case matters).
std::optional<Severity> ParseSeverity(std::string_view name);

}  // namespace advisor
