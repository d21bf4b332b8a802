#include "engine/script/code_change.h"

#include <regex>

namespace advisor {
namespace {

std::string Where(const SourceLocation& at) { return at.file + ":" + std::to_string(at.line); }

std::string Diff(const SourceLocation& at, const std::string& before, const std::string& after) {
  return "--- " + at.file + "\n+++ " + at.file + "\n@@ -" + std::to_string(at.line) + " +" +
         std::to_string(at.line) + " @@\n-" + before + "\n+" + after + "\n";
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
      return match.prefix().str() + source + "[torch.arange(" + source + ".shape[0], device=" +
             source + ".device).unsqueeze(-1), " + index + "]" + match.suffix().str();
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<CodeChange> SuggestCodeChange(const std::string& recipe_id,
                                            const SourceLocation& at) {
  if (at.file.empty() || at.line <= 0) return std::nullopt;
  CodeChange change;
  if (recipe_id == "gather-to-index") {
    change.advice = "take the tokens at " + Where(at) +
                    " by row indexing instead of torch.gather (same values; a backward without "
                    "the deterministic scatter's sort)";
    if (auto rewritten = GatherAsIndexing(at.text)) {
      change.patch = Diff(at, at.text, *rewritten);
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
  if (recipe_id == "sdpa-attention") {
    change.advice = "compute the attention at " + Where(at) +
                    " with torch.nn.functional.scaled_dot_product_attention(q, k, v) instead of "
                    "softmax(q @ k.transpose(-2, -1) * scale) @ v";
    return change;
  }
  return std::nullopt;
}

}  // namespace advisor
