#include "engine/script/code_change.h"

#include <regex>

#include "engine/script/attention_change.h"

namespace advisor {
namespace {

std::string Where(const SourceLocation& at) { return at.file + ":" + std::to_string(at.line); }

// "@@ -57 +57 @@" for one line, "@@ -57,3 +57 @@" for three replaced by one.
std::string Range(int first, std::size_t count) {
  return std::to_string(first) + (count == 1 ? "" : "," + std::to_string(count));
}

// `torch.gather(x, 1, idx.unsqueeze(-1).expand(...))` and `x.gather(dim=1, index=...)`: tokens
// taken along dim 1 with their whole feature vector. Row indexing takes the same values; its
// backward accumulates with index_put instead of a sorting scatter.
std::optional<std::string> GatherAsIndexing(const std::string& line) {
  static const std::regex kFunction(
      R"(torch\.gather\(\s*([A-Za-z_][\w.]*)\s*,\s*(?:dim\s*=\s*)?1\s*,\s*(?:index\s*=\s*)?([A-Za-z_][\w.]*)\.unsqueeze\(\s*-1\s*\)\.expand\([^()]*(?:\([^()]*\)[^()]*)*\)\s*\))");
  static const std::regex kMethod(
      R"(([A-Za-z_][\w.]*)\.gather\(\s*(?:dim\s*=\s*)?1\s*,\s*(?:index\s*=\s*)?([A-Za-z_][\w.]*)\.unsqueeze\(\s*-1\s*\)\.expand\([^()]*(?:\([^()]*\)[^()]*)*\)\s*\))");
  for (const std::regex* pattern : {&kFunction, &kMethod}) {
    std::smatch match;
    if (std::regex_search(line, match, *pattern)) {
      const std::string source = match[1], index = match[2];
      return match.prefix().str() + source + "[torch.arange(" + source +
             ".shape[0], device=" + source + ".device).unsqueeze(-1), " + index + "]" +
             match.suffix().str();
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<CodeChange> SuggestCodeChange(const std::string& recipe_id, const SourceLocation& at,
                                            const SourceBlock* function) {
  if (at.file.empty() || at.line <= 0) return std::nullopt;
  CodeChange change;
  if (recipe_id == "gather-to-index") {
    change.advice = "take the tokens at " + Where(at) +
                    " by row indexing instead of torch.gather (same values; a backward without "
                    "the deterministic scatter's sort)";
    if (auto rewritten = GatherAsIndexing(at.text)) {
      change.first_line = at.line;
      change.before = {at.text};
      change.after = {*rewritten};
    }
    return change;
  }
  if (recipe_id == "crop-first") {
    // A pipeline's order lives in how the script composes its transforms, whose shapes vary too
    // much for a diff of one line: the change is said in words, and was not measured.
    change.advice = "a suggestion, not verified: crop before the transform at " + Where(at) +
                    " instead of after it. Crop to the output's size widened by the transform's "
                    "reach (its radius, or half its kernel) on each side, run the transform on "
                    "that, then cut the margin off; a pointwise transform needs no margin";
    return change;
  }
  if (recipe_id == "sdpa-attention") return SdpaChange(at, function);
  if (recipe_id == "hf-sdpa-attention") {
    // The attention is transformers' code: the change is where the script loads the model, a
    // line the finding does not know.
    change.advice =
        "load the model with attn_implementation=\"sdpa\" (from_pretrained(..., "
        "attn_implementation=\"sdpa\") or from_config(config, "
        "attn_implementation=\"sdpa\")) instead of \"eager\"";
    return change;
  }
  return std::nullopt;
}

std::string Patch(const std::string& file, const CodeChange& change) {
  if (change.before.empty()) return "";
  std::string patch = "--- " + file + "\n+++ " + file + "\n@@ -" +
                      Range(change.first_line, change.before.size()) + " +" +
                      Range(change.first_line, change.after.size()) + " @@\n";
  for (const std::string& line : change.before) patch += "-" + line + "\n";
  for (const std::string& line : change.after) patch += "+" + line + "\n";
  return patch;
}

void SuggestFindingChanges(std::vector<Finding>& findings, Door door) {
  for (Finding& finding : findings) {
    if (!finding.source) continue;
    const std::optional<SourceBlock> function =
        door == Door::kScript ? EnclosingFunction(finding.source->file, finding.source->line)
                              : std::nullopt;
    for (const std::string& recipe : RecipesOf(finding)) {
      finding.change = SuggestCodeChange(recipe, *finding.source, function ? &*function : nullptr);
      if (finding.change) break;
    }
  }
}

}  // namespace advisor
