#pragma once
// A reader of the protobuf wire format over bytes it does not own (a mapped model file): the
// importer builds the IR straight from it, so a model is never held as an onnx::ModelProto and
// weights stay where they are in the file. Field semantics follow protobuf's: repeated scalars
// packed or not, a known field with another wire type (or an enum value the schema lacks) is an
// unknown field, unknown fields are kept byte for byte.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace msa::wire {

enum WireType : int { Varint = 0, Fixed64 = 1, Bytes = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };

// Messages nested deeper than this are refused (protobuf's default recursion limit).
constexpr int kMaxDepth = 100;

class Reader {
 public:
  explicit Reader(std::string_view bytes) : m_p(bytes.data()), m_end(bytes.data() + bytes.size()) {}

  bool done() const { return m_p >= m_end; }
  const char* position() const { return m_p; }

  // The next field's number and wire type; false at a malformed tag (number 0, wire type 6/7).
  bool tag(uint32_t& field, int& type) {
    uint64_t t = 0;
    if (!varint(t) || t > 0xffffffffu) return false;
    field = static_cast<uint32_t>(t >> 3);
    type = static_cast<int>(t & 7);
    return field != 0 && type <= Fixed32;
  }
  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (m_p >= m_end) return false;
      const auto b = static_cast<uint8_t>(*m_p++);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;  // more than ten bytes
  }
  bool fixed32(uint32_t& v) { return fixed(&v, 4); }
  bool fixed64(uint64_t& v) { return fixed(&v, 8); }
  bool bytes(std::string_view& v) {
    uint64_t n = 0;
    if (!varint(n) || n > static_cast<uint64_t>(m_end - m_p)) return false;
    v = std::string_view(m_p, static_cast<size_t>(n));
    m_p += n;
    return true;
  }
  // Skips the value of a field whose tag was just read (groups to their end, nested).
  bool skip(uint32_t field, int type, int depth = 0) {
    uint64_t v;
    std::string_view s;
    switch (type) {
      case Varint: return varint(v);
      case Fixed64: return fixed64(v);
      case Fixed32: {
        uint32_t w;
        return fixed32(w);
      }
      case Bytes: return bytes(s);
      case StartGroup:
        if (depth >= kMaxDepth) return false;
        for (;;) {
          uint32_t f;
          int t;
          if (!tag(f, t)) return false;
          if (t == EndGroup) return f == field;
          if (!skip(f, t, depth + 1)) return false;
        }
      default: return false;  // an end group without its start
    }
  }

 private:
  bool fixed(void* out, size_t n) {
    if (static_cast<size_t>(m_end - m_p) < n) return false;
    std::memcpy(out, m_p, n);  // little-endian, as the wire format
    m_p += n;
    return true;
  }

  const char* m_p;
  const char* m_end;
};

}  // namespace msa::wire
