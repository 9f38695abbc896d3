#pragma once
// Names in models and profiles are bytes a stranger chose: an escape sequence that clears the
// terminal or sets its title, a right-to-left override that reverses what follows, a newline that
// forges a line of the report, <script> in a Markdown or HTML report. One escaping function per
// output kind, used by every writer of text that holds such a name; JSON is escaped by its writer.
#include <string>
#include <string_view>

namespace msa {

// For a terminal or a plain-text file: every control character (C0 with TAB and newline, DEL,
// C1 such as U+009B CSI), the bidirectional overrides, isolates and marks and the line and
// paragraph separators shown as text ("\x1b", "\u202e"); bytes that are not UTF-8 as "\xff".
// Nothing else changes: a name that holds none of these reads as it is.
std::string terminalText(std::string_view s);

// Inside Markdown prose (a table cell, a list item, a heading): terminalText, then HTML
// (<, >, &) as entities and Markdown syntax (links, emphasis, code, tables, headings) escaped, so
// the text renders as itself and nothing in it becomes markup or a link.
std::string markdownText(std::string_view s);
// A name as a Markdown code span (nothing inside one is markup): terminalText, backticks made
// quotes so the span cannot end early, and the table's pipe escaped.
std::string markdownCode(std::string_view s);

// HTML text or an attribute value: terminalText, then &, <, >, " and ' as entities.
std::string htmlText(std::string_view s);

}  // namespace msa
