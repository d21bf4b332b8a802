#include "engine/report/markdown_markup.h"

#include <algorithm>
#include <string_view>

#include "engine/util/printable_text.h"

namespace advisor {

namespace {

// Line breaks would end a table row or a list item early; other control characters and invalid
// UTF-8 from a model or a rule must not reach the file at all (printable_text.h).
std::string OneLine(const std::string& text) {
  std::string line = text;
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return PrintableText(line);
}

// An identifier as a code span. Code spans render no HTML and no backslash escapes; the fence is
// longer than any run of backticks inside. In a table cell pipes are escaped, because GFM splits
// cells before it reads code spans (and drops the backslash there); anywhere else a backslash
// would show.
std::string CodeSpan(const std::string& identifier, bool in_table) {
  std::string body;
  std::size_t longest_run = 0, run = 0;
  for (char c : OneLine(identifier)) {
    run = c == '`' ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
    if (c == '|' && in_table) body += '\\';
    body += c;
  }
  const std::string fence(longest_run + 1, '`');
  // A space keeps a leading or trailing backtick from joining the fence.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

}  // namespace

// Prose: backslash-escape what Markdown would read as markup or raw HTML, and table pipes.
// Underscores stay: in GFM they do not emphasise inside words (index_select), the common case.
std::string MarkdownText(const std::string& text) {
  static constexpr std::string_view kMarkup = "\\`*[]<>|#~!";
  std::string escaped;
  for (char c : OneLine(text)) {
    if (kMarkup.find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string MarkdownCode(const std::string& identifier) { return CodeSpan(identifier, false); }

namespace {

std::string RenderCell(const TableCell& cell) {
  switch (cell.style) {
    case TableCell::Style::kCode:
      return cell.text.empty() ? "" : CodeSpan(cell.text, /*in_table=*/true);
    case TableCell::Style::kNotMeasured:
      return "_" + MarkdownText(cell.text) + "_";
    case TableCell::Style::kText:
      break;
  }
  return MarkdownText(cell.text);
}

}  // namespace

void MarkdownTable(std::ostream& out, const Table& table) {
  out << "|";
  for (const std::string& column : table.columns) out << " " << MarkdownText(column) << " |";
  out << "\n|";
  for (bool numeric : table.numeric) out << (numeric ? " ---: |" : " --- |");
  out << "\n";
  for (const TableRow& row : table.rows) {
    out << "|";
    for (const TableCell& cell : row.cells) {
      const std::string text = RenderCell(cell);
      out << " " << (row.highlighted && !text.empty() ? "**" + text + "**" : text) << " |";
    }
    out << "\n";
  }
  out << "\n";
}

}  // namespace advisor
