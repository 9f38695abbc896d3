#pragma once
// A strict CSV reader for profiler exports: RFC 4180 quoting ("" escapes a quote, fields may
// span lines), CRLF or LF, a UTF-8 BOM. Every row remembers the line it started on so that
// errors can name it. Whitespace (including the tab msprof appends to keep spreadsheets from
// rounding timestamps) is trimmed from unquoted fields. Big exports are streamed row by row.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace msa {

struct CsvRow {
  int line = 0;  // 1-based line the row starts on
  std::vector<std::string> fields;
  std::vector<bool> quoted;  // per field: it was quoted (a quoted field is one cell, whatever it holds)
};

struct CsvHeader {
  std::vector<std::string> names;
  // Index of the first column whose name equals one of `names` (case-insensitive, trimmed).
  std::optional<size_t> column(std::initializer_list<std::string_view> wanted) const;
};

// Streams `text`: the header row to `onHeader`, then each data row to `onRow` (the row object
// is reused). Blank lines are skipped. A row whose field count differs from the header's is an
// error, unless `raggedRows` is set: then it reaches `onRow` as it is, and the caller decides
// how much of it is unambiguous. The first error, the parser's or a callback's, ends the scan.
Status scanCsv(std::string_view text, const std::string& label, const std::function<Status(const CsvHeader&)>& onHeader,
               const std::function<Status(const CsvRow&)>& onRow, bool raggedRows = false);
Result<std::string> readTextFile(const std::filesystem::path& file);

class CsvTable {
 public:
  static Result<CsvTable> parse(std::string_view text, const std::string& label);
  static Result<CsvTable> read(const std::filesystem::path& file);

  const std::vector<std::string>& header() const { return m_header.names; }
  const std::vector<CsvRow>& rows() const { return m_rows; }
  const std::string& label() const { return m_label; }
  std::optional<size_t> column(std::initializer_list<std::string_view> names) const { return m_header.column(names); }

 private:
  std::string m_label;
  CsvHeader m_header;
  std::vector<CsvRow> m_rows;
};

// Number parsing for profiler fields: the whole (trimmed) field must be a finite number.
std::optional<double> parseNumber(std::string_view s);
// `v` as an integer (truncated toward zero) when it is finite and within long long's range,
// else nullopt: a file can say 1e300, and casting that is undefined behaviour.
std::optional<long long> integerOf(double v);
std::string_view trimmedView(std::string_view s);
std::string trimmed(std::string_view s);
std::string lowercase(std::string_view s);
bool equalsNoCase(std::string_view a, std::string_view b);

}  // namespace msa
