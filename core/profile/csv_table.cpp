#include "profile/csv_table.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace msa {

std::string trimmed(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<double> parseNumber(std::string_view s) {
  std::string t = trimmed(s);
  if (t.empty()) return std::nullopt;
  const char* b = t.data();
  if (*b == '+') ++b;
  double v = 0;
  auto [end, ec] = std::from_chars(b, t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

Result<CsvTable> CsvTable::parse(std::string_view text, const std::string& label) {
  CsvTable t;
  t.m_label = label;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.find('\0') != std::string_view::npos)
    return Error::model("not a text file (contains NUL bytes)", label);

  std::vector<CsvRow> records;
  size_t i = 0;
  int line = 1;
  while (i < text.size()) {
    CsvRow row;
    row.line = line;
    std::string field;
    bool quotedField = false, fieldStarted = false;
    bool endOfRecord = false;
    while (i < text.size() && !endOfRecord) {
      char c = text[i];
      if (c == '"' && !fieldStarted) {
        // A quoted field: runs to the closing quote, "" is a literal quote.
        quotedField = fieldStarted = true;
        int openLine = line;
        ++i;
        bool closed = false;
        while (i < text.size()) {
          char q = text[i];
          if (q == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (q == '\n') ++line;
          field += q;
          ++i;
        }
        if (!closed)
          return Error::model("line " + std::to_string(openLine) + ": unterminated quoted field", label);
        // Only whitespace may follow the closing quote before the separator.
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          return Error::model("line " + std::to_string(line) + ": unexpected character after a quoted field", label);
        continue;
      }
      if (c == ',') {
        row.fields.push_back(quotedField ? field : trimmed(field));
        field.clear();
        quotedField = fieldStarted = false;
        ++i;
        continue;
      }
      if (c == '\r' || c == '\n') {
        if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        ++i;
        ++line;
        endOfRecord = true;
        break;
      }
      if (c == '"' && fieldStarted && !quotedField && !trimmed(field).empty())
        return Error::model("line " + std::to_string(line) + ": stray quote inside an unquoted field", label);
      if (c == '"') {  // whitespace then a quote: treat as the start of a quoted field
        field.clear();
        fieldStarted = false;
        continue;
      }
      field += c;
      fieldStarted = true;
      ++i;
    }
    row.fields.push_back(quotedField ? field : trimmed(field));
    bool blank = row.fields.size() == 1 && row.fields[0].empty() && !quotedField;
    if (!blank) records.push_back(std::move(row));
  }
  if (records.empty()) return Error::model("empty file: no header line", label);

  t.m_header = records.front().fields;
  for (auto& h : t.m_header) h = trimmed(h);
  for (size_t r = 1; r < records.size(); ++r) {
    const CsvRow& row = records[r];
    if (row.fields.size() != t.m_header.size())
      return Error::model("line " + std::to_string(row.line) + ": " + std::to_string(row.fields.size()) +
                              " fields, the header has " + std::to_string(t.m_header.size()),
                          label);
  }
  t.m_rows.assign(std::make_move_iterator(records.begin() + 1), std::make_move_iterator(records.end()));
  return t;
}

Result<CsvTable> CsvTable::read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::model("cannot open the file", file.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), file.string());
}

std::optional<size_t> CsvTable::column(std::initializer_list<std::string_view> names) const {
  for (std::string_view want : names) {
    std::string w = lowercase(trimmed(want));
    for (size_t i = 0; i < m_header.size(); ++i)
      if (lowercase(m_header[i]) == w) return i;
  }
  return std::nullopt;
}

}  // namespace msa
