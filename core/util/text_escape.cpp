#include "util/text_escape.h"

#include <cstdint>
#include <cstdio>

namespace msa {
namespace {

// The code point of the UTF-8 sequence at s[i] and its length; length 0 when it is not valid.
std::pair<uint32_t, size_t> decode(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  if (c < 0x80) return {c, 1};
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return {0, 0};
  if (i + n > s.size()) return {0, 0};
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, n};
}

// Code points a terminal or a renderer acts on instead of showing.
bool acts(uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||  // C0, DEL, C1
         cp == 0x061C || cp == 0x200E || cp == 0x200F ||            // Arabic letter mark, LRM, RLM
         (cp >= 0x202A && cp <= 0x202E) ||                          // embeddings and overrides
         (cp >= 0x2066 && cp <= 0x2069) ||                          // isolates
         cp == 0x2028 || cp == 0x2029;                              // line and paragraph separators
}

}  // namespace

std::string terminalText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto [cp, n] = decode(s, i);
    char buf[11];
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<uint8_t>(s[i]));
      out += buf;
      ++i;
      continue;
    }
    if (acts(cp)) {
      if (cp < 0x80) std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      else std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string markdownText(std::string_view s) {
  std::string out;
  for (char c : terminalText(s)) switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '(': case ')': case '|': case '#':
      case '!': case '~':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  return out;
}

std::string markdownCode(std::string_view s) {
  std::string out = "`";
  for (char c : terminalText(s)) {
    if (c == '`') out += '\'';
    else if (c == '|') out += "\\|";
    else out += c;
  }
  return out + "`";
}

std::string htmlText(std::string_view s) {
  std::string out;
  for (char c : terminalText(s)) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

}  // namespace msa
