#include "util/utf8.h"

#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstring>

namespace msa {
namespace {

// Length of the valid UTF-8 sequence at s[i], 0 when the byte there starts none.
size_t validSequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and code points beyond Unicode are invalid.
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

template <typename OnInvalid>
std::string rewrite(std::string_view s, OnInvalid onInvalid) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (size_t n = validSequence(s, i)) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      onInvalid(out, static_cast<uint8_t>(s[i]));
      ++i;
    }
  }
  return out;
}

}  // namespace

bool isValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = validSequence(s, i);
    if (!n) return false;
    i += n;
  }
  return true;
}

std::string escapeInvalidUtf8(std::string_view s) {
  if (isValidUtf8(s)) return std::string(s);
  return rewrite(s, [](std::string& out, uint8_t byte) {
    char buf[5];
    std::snprintf(buf, sizeof buf, "\\x%02x", byte);
    out += buf;
  });
}

std::string protectInvalidUtf8InJson(std::string_view json, bool* changed) {
  // The stream's repair over the text in memory: one set of rules for both.
  struct View : std::streambuf {
    explicit View(std::string_view s) {
      char* p = const_cast<char*>(s.data());
      setg(p, p, p + s.size());
    }
  } view(json);
  JsonRepairBuffer repaired(&view);
  std::string out;
  out.reserve(json.size());
  char buf[1 << 15];
  for (std::streamsize n; (n = repaired.sgetn(buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  if (changed) *changed = repaired.changed();
  return out;
}

std::string restoreRawBytes(std::string_view s) {
  // U+F780..U+F7FF is EF 9E 80..EF 9F BF in UTF-8.
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
    if (i + 2 < s.size() && b(i) == 0xEF && (b(i + 1) == 0x9E || b(i + 1) == 0x9F) && (b(i + 2) & 0xC0) == 0x80) {
      const uint32_t cp = 0xF000u | ((b(i + 1) & 0x3Fu) << 6) | (b(i + 2) & 0x3Fu);
      out += static_cast<char>(cp & 0xFF);
      i += 2;
      continue;
    }
    out += s[i];
  }
  return out;
}

JsonRepairBuffer::int_type JsonRepairBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  std::string out;
  while (out.empty() && !m_end) {
    char chunk[1 << 15];
    const std::streamsize n = m_source->sgetn(chunk, sizeof chunk);
    if (n <= 0) m_end = true;
    std::string raw = std::move(m_pending);
    m_pending.clear();
    raw.append(chunk, static_cast<size_t>(std::max<std::streamsize>(n, 0)));
    size_t i = 0;
    while (i < raw.size()) {
      const auto c = static_cast<uint8_t>(raw[i]);
      if (c >= 0x80) {
        const size_t len = validSequence(raw, i);
        // A lead byte whose sequence the next chunk may complete.
        const size_t want = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        if (!len && !m_end && i + want > raw.size()) {
          m_pending = raw.substr(i);
          break;
        }
        if (len) {
          out.append(raw, i, len);
          i += len;
        } else {
          char buf[7];
          std::snprintf(buf, sizeof buf, "\\uf7%02x", c);
          out += buf;
          m_changed = true;
          ++i;
        }
        m_escaped = false;
        continue;
      }
      if (m_inString && c < 0x20) {
        char buf[7];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
        m_escaped = false;
      } else {
        out += static_cast<char>(c);
        if (m_inString) {
          if (m_escaped) m_escaped = false;
          else if (c == '\\') m_escaped = true;
          else if (c == '"') m_inString = false;
        } else if (c == '"') {
          m_inString = true;
        }
      }
      ++i;
    }
  }
  if (out.empty()) return traits_type::eof();
  if (out.size() > m_out.size()) m_out.resize(out.size());
  std::memcpy(m_out.data(), out.data(), out.size());
  setg(m_out.data(), m_out.data(), m_out.data() + out.size());
  return traits_type::to_int_type(*gptr());
}

}  // namespace msa
