#pragma once
// Human-readable reports: a plain-text check-up sheet (overview, TOP-N, per category), the same
// in Markdown, and a focused table of one category's findings (`msadvisor-cli fusions|…`).
#include <string>

#include "advisor/advisor.h"
#include "report/report_json.h"

namespace msa {

std::string reportToText(const Report& r, const ReportOptions& options = {});
std::string reportToMarkdown(const Report& r, const ReportOptions& options = {});
// Every finding of `category`, ranked, as a table with the columns that matter for it.
std::string categoryToText(const Report& r, Category category, const ReportOptions& options = {});

// Breaks `text` into lines of at most `width` columns (at spaces; CJK text anywhere), each
// prefixed by `indent`.
// `text` shown escaped for a terminal (util/text_escape.h), wrapped at `width` columns.
std::string wrapText(std::string_view text, size_t width, std::string_view indent);

}  // namespace msa
