// How the Markdown documents (report.md, diff.md) write untrusted text, identifiers and tables,
// so that a module path or a rule's message can neither break a table nor inject HTML.
#pragma once

#include <ostream>
#include <string>

#include "engine/report/report_tables.h"
#include "engine/report/report_text.h"

namespace advisor {

// Prose: what Markdown would read as markup or raw HTML, and table pipes, backslash-escaped, on
// one line, printable (printable_text.h).
std::string MarkdownText(const std::string& text);

// An identifier (module path, op name, file) as a code span.
std::string MarkdownCode(const std::string& identifier);

// A GitHub-flavoured table, highlighted rows in bold, and a blank line after it.
void MarkdownTable(std::ostream& out, const Table& table);

// The sentences of report_text.h, written for Markdown.
inline constexpr InlineMarkup kMarkdownMarkup{MarkdownCode, MarkdownText};

}  // namespace advisor
