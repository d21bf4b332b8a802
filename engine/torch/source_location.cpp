#include "engine/torch/source_location.h"

#include <algorithm>

namespace advisor {
namespace {

std::string Trim(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

std::optional<SourceLocation> LocationOf(torch::jit::SourceRange range) {
  if (auto original = range.findSourceRangeThatGenerated()) range = *original;
  const auto file_line = range.file_line_col();
  if (!file_line || !range.source()) return std::nullopt;
  SourceLocation location;
  location.file = std::get<0>(*file_line);
  location.line = static_cast<int>(std::get<1>(*file_line));
  // The text of the source line holding the range, from the archive's copy of the source.
  const std::string text = range.source()->text_str().str();
  const std::size_t start = std::min(range.start(), text.size());
  const std::size_t line_begin = text.rfind('\n', start == 0 ? 0 : start - 1);
  const std::size_t from = line_begin == std::string::npos ? 0 : line_begin + 1;
  location.text = Trim(text.substr(from, text.find('\n', start) - from));
  return location;
}

bool InTorchPackage(const std::string& file) {
  return file.find("-packages/torch/") != std::string::npos ||
         file.rfind("code/__torch__/torch/", 0) == 0 ||
         file.find("/code/__torch__/torch/") != std::string::npos;
}

}  // namespace advisor
