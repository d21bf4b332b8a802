#include "engine/report/html_markup.h"

#include "engine/report/format.h"
#include "engine/report/html_escape.h"
#include "engine/report/html_style.h"

namespace advisor {

// A long module path or file name may break after its dots and slashes, and nowhere else: a
// break anywhere split names letter by letter in narrow table columns.
std::string HtmlCode(const std::string& identifier) {
  std::string code = "<code>";
  for (char c : EscapeHtml(identifier)) {
    code += c;
    if (c == '.' || c == '/') code += "<wbr>";
  }
  return code + "</code>";
}

std::string NotMeasuredSpan() {
  return "<span class=\"not-measured\">" + std::string(kNotMeasured) + "</span>";
}

namespace {

std::string RenderCell(const TableCell& cell, bool numeric) {
  const std::string open = numeric ? "<td class=\"num\">" : "<td>";
  switch (cell.style) {
    case TableCell::Style::kCode:
      return open + (cell.text.empty() ? "" : HtmlCode(cell.text)) + "</td>";
    case TableCell::Style::kNotMeasured:
      return open + NotMeasuredSpan() + "</td>";
    case TableCell::Style::kText:
      break;
  }
  return open + EscapeHtml(cell.text) + "</td>";
}

}  // namespace

void HtmlTable(std::ostream& out, const Table& table) {
  // Wide tables scroll inside their wrapper instead of widening the page.
  out << "<div class=\"table-wrap\"><table><thead><tr>";
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    out << (table.numeric[i] ? "<th class=\"num\">" : "<th>") << EscapeHtml(table.columns[i])
        << "</th>";
  }
  out << "</tr></thead><tbody>\n";
  for (const TableRow& row : table.rows) {
    out << (row.highlighted ? "<tr class=\"highlighted\">" : "<tr>");
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      out << RenderCell(row.cells[i], i < table.numeric.size() && table.numeric[i]);
    }
    out << "</tr>\n";
  }
  out << "</tbody></table></div>\n";
}

void HtmlPageHead(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << EscapeHtml(title) << "</title>\n"
      << "<style>" << kReportCss << "</style></head>\n<body><main>\n";
}

}  // namespace advisor
