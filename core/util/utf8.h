#pragma once
// Names in models and profiles are bytes: ONNX says UTF-8, but nothing enforces it. These keep
// such names printable and let a JSON parser (which insists on UTF-8) read what a runtime wrote.
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace msa {

bool isValidUtf8(std::string_view s);
// Valid UTF-8 as it is; every byte that is not part of a valid sequence as "\xNN".
std::string escapeInvalidUtf8(std::string_view s);

// JSON text whose strings may hold bytes that are not UTF-8 (ONNX Runtime's profile of a model
// with such node names): each such byte NN becomes the escape \uF7NN (a private-use character)
// so a strict parser accepts the text; restoreRawBytes turns those characters back into the
// bytes. Control characters inside strings are escaped too (see JsonRepairBuffer). `changed`:
// some byte was not UTF-8 (then restoreRawBytes is needed).
std::string protectInvalidUtf8InJson(std::string_view json, bool* changed = nullptr);
std::string restoreRawBytes(std::string_view s);

// The same as a stream over another: JSON text as a runtime wrote it, names and all, made
// parseable on the way — bytes that are not UTF-8 become \uF7NN, and control characters inside
// strings (a TAB in a node name: ONNX Runtime writes names unescaped) become \u00NN, which the
// parser turns back into the same character. changed() says whether restoreRawBytes is needed.
class JsonRepairBuffer : public std::streambuf {
 public:
  explicit JsonRepairBuffer(std::streambuf* source) : m_source(source), m_out(1 << 16) {}
  bool changed() const { return m_changed; }

 protected:
  int_type underflow() override;

 private:
  std::streambuf* m_source;
  std::vector<char> m_out;
  std::string m_pending;  // raw bytes of a sequence cut at the end of a chunk
  bool m_inString = false, m_escaped = false, m_changed = false, m_end = false;
};

}  // namespace msa
