#include "profile/csv_table.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "util/input_file.h"
#include "util/read_limits.h"

namespace msa {

std::string_view trimmedView(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string trimmed(std::string_view s) { return std::string(trimmedView(s)); }

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::optional<double> parseNumber(std::string_view s) {
  std::string_view t = trimmedView(s);
  if (t.empty()) return std::nullopt;
  if (t.front() == '+') t.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<long long> integerOf(double v) {
  constexpr double kTwo63 = 9223372036854775808.0;  // exact in a double; every smaller magnitude converts
  if (!std::isfinite(v) || v >= kTwo63 || v < -kTwo63) return std::nullopt;
  return static_cast<long long>(v);
}

std::optional<size_t> CsvHeader::column(std::initializer_list<std::string_view> wanted) const {
  for (std::string_view w : wanted)
    for (size_t i = 0; i < names.size(); ++i)
      if (equalsNoCase(trimmedView(names[i]), trimmedView(w))) return i;
  return std::nullopt;
}

Status scanCsv(std::string_view text, const std::string& label, const std::function<Status(const CsvHeader&)>& onHeader,
               const std::function<Status(const CsvRow&)>& onRow, bool raggedRows) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.find('\0') != std::string_view::npos) return Error::model("not a text file (contains NUL bytes)", label);
  auto lineError = [&](int line, const std::string& what) {
    return Error::model("line " + std::to_string(line) + ": " + what, label);
  };

  CsvHeader header;
  bool haveHeader = false;
  RecordBudget rows(label, "rows");
  CsvRow row;
  std::string field;
  size_t i = 0;
  int line = 1;
  while (i < text.size()) {
    row.line = line;
    row.fields.clear();
    row.quoted.clear();
    bool quotedField = false;
    field.clear();
    while (i < text.size()) {
      char c = text[i];
      if (c == '"' && trimmedView(field).empty() && !quotedField) {
        // A quoted field: runs to the closing quote, "" is a literal quote.
        field.clear();
        quotedField = true;
        const int openLine = line;
        bool closed = false;
        for (++i; i < text.size(); ++i) {
          char q = text[i];
          if (q == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              ++i;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (q == '\n') ++line;
          field += q;
        }
        if (!closed) return lineError(openLine, "unterminated quoted field");
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          return lineError(line, "unexpected character after a quoted field");
        continue;
      }
      if (c == ',') {
        row.fields.push_back(quotedField ? field : trimmed(field));
        row.quoted.push_back(quotedField);
        field.clear();
        quotedField = false;
        ++i;
        continue;
      }
      if (c == '\r' || c == '\n') {
        i += (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
        ++line;
        break;
      }
      if (c == '"') return lineError(line, "stray quote inside an unquoted field");
      if (quotedField) return lineError(line, "unexpected character after a quoted field");
      field += c;
      ++i;
    }
    row.fields.push_back(quotedField ? field : trimmed(field));
    row.quoted.push_back(quotedField);
    if (row.fields.size() == 1 && row.fields[0].empty() && !quotedField) continue;  // blank line
    if (!haveHeader) {
      header.names = row.fields;
      for (auto& h : header.names) h = trimmed(h);
      haveHeader = true;
      if (auto s = onHeader(header); !s) return s;
      continue;
    }
    if (row.fields.size() != header.names.size() && !raggedRows)
      return lineError(row.line, std::to_string(row.fields.size()) + " fields, the header has " +
                                     std::to_string(header.names.size()));
    if (!rows.add()) return rows.error();
    if (auto s = onRow(row); !s) return s;
  }
  if (!haveHeader) return Error::model("empty file: no header line", label);
  return Ok{};
}

Result<std::string> readTextFile(const std::filesystem::path& file) { return readInputFile(file); }

Result<CsvTable> CsvTable::parse(std::string_view text, const std::string& label) {
  CsvTable t;
  t.m_label = label;
  auto s = scanCsv(
      text, label,
      [&](const CsvHeader& h) -> Status {
        t.m_header = h;
        return Ok{};
      },
      [&](const CsvRow& r) -> Status {
        t.m_rows.push_back(r);
        return Ok{};
      });
  if (!s) return s.error();
  return t;
}

Result<CsvTable> CsvTable::read(const std::filesystem::path& file) {
  auto text = readTextFile(file);
  if (!text) return text.error();
  return parse(*text, file.string());
}

}  // namespace msa
