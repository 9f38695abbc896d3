#pragma once
// A strict CSV reader for profiler exports: RFC 4180 quoting ("" escapes a quote, fields may
// span lines), CRLF or LF, a UTF-8 BOM. Every row remembers the line it started on so that
// errors can name it. Whitespace (including the tab msprof appends to keep spreadsheets from
// rounding timestamps) is trimmed from unquoted fields.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace msa {

struct CsvRow {
  int line = 0;  // 1-based line the row starts on
  std::vector<std::string> fields;
};

class CsvTable {
 public:
  // Parses `text`; `label` names the source in errors. Each data row must have as many fields
  // as the header. Blank lines are skipped.
  static Result<CsvTable> parse(std::string_view text, const std::string& label);
  static Result<CsvTable> read(const std::filesystem::path& file);

  const std::vector<std::string>& header() const { return m_header; }
  const std::vector<CsvRow>& rows() const { return m_rows; }
  const std::string& label() const { return m_label; }
  // Index of the first column whose name equals one of `names` (case-insensitive, trimmed).
  std::optional<size_t> column(std::initializer_list<std::string_view> names) const;

 private:
  std::string m_label;
  std::vector<std::string> m_header;
  std::vector<CsvRow> m_rows;
};

// Number parsing for profiler fields: the whole (trimmed) field must be a finite number.
std::optional<double> parseNumber(std::string_view s);
std::string trimmed(std::string_view s);
std::string lowercase(std::string_view s);

}  // namespace msa
