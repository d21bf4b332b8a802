// How the HTML pages (report.html, diff.html) write identifiers, unmeasured values, tables and
// their head: one stylesheet (html_style.h), one Content-Security-Policy, no scripts.
#pragma once

#include <ostream>
#include <string>

#include "engine/report/html_escape.h"
#include "engine/report/report_tables.h"
#include "engine/report/report_text.h"

namespace advisor {

// An identifier (module path, op name, file) as <code>, breakable after its dots and slashes.
std::string HtmlCode(const std::string& identifier);

// kNotMeasured, styled so that it cannot be mistaken for a value.
std::string NotMeasuredSpan();

// A table in a wrapper that scrolls when it is wider than the page.
void HtmlTable(std::ostream& out, const Table& table);

// The sentences of report_text.h, written for HTML.
inline constexpr InlineMarkup kHtmlMarkup{HtmlCode, EscapeHtml};

// The document's start up to and including <main>: the policy that forbids scripts and any
// fetch, the inline stylesheet, the title (escaped).
void HtmlPageHead(std::ostream& out, const std::string& title);

}  // namespace advisor
