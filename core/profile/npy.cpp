#include "profile/npy.h"
#include "util/input_file.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <fstream>
#include <optional>

#include "model/graph.h"

namespace msa {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr int64_t kMaxDim = int64_t(1) << 40;

struct Descr {
  DType dtype = DType::Undefined;
  int size = 0;
  bool bigEndian = false;
};

std::optional<Descr> parseDescr(std::string_view d) {
  if (d.size() < 2) return std::nullopt;
  Descr out;
  char order = d[0];
  if (order == '<' || order == '>' || order == '|' || order == '=') d.remove_prefix(1);
  else order = '=';
  out.bigEndian = order == '>';
  char kind = d[0];
  int size = 0;
  for (char c : d.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    size = size * 10 + (c - '0');
    if (size > 64) return std::nullopt;
  }
  out.size = size;
  switch (kind) {
    case 'f': out.dtype = size == 2 ? DType::Float16 : size == 4 ? DType::Float : size == 8 ? DType::Double : DType::Undefined; break;
    case 'i': out.dtype = size == 1 ? DType::Int8 : size == 2 ? DType::Int16 : size == 4 ? DType::Int32 : size == 8 ? DType::Int64 : DType::Undefined; break;
    case 'u': out.dtype = size == 1 ? DType::UInt8 : size == 2 ? DType::UInt16 : size == 4 ? DType::UInt32 : size == 8 ? DType::UInt64 : DType::Undefined; break;
    case 'b': out.dtype = size == 1 ? DType::Bool : DType::Undefined; break;
    case '?': out.dtype = DType::Bool; out.size = 1; break;
    case 'c': out.dtype = size == 8 ? DType::Complex64 : size == 16 ? DType::Complex128 : DType::Undefined; break;
    default: break;
  }
  if (out.dtype == DType::Undefined) return std::nullopt;
  return out;
}

// The value after `key` in the header's Python dict literal, up to the next top-level comma or '}'.
std::optional<std::string_view> dictValue(std::string_view h, std::string_view key) {
  for (char q : {'\'', '"'}) {
    std::string k = std::string(1, q) + std::string(key) + std::string(1, q);
    size_t p = h.find(k);
    if (p == std::string_view::npos) continue;
    p = h.find(':', p + k.size());
    if (p == std::string_view::npos) return std::nullopt;
    ++p;
    while (p < h.size() && h[p] == ' ') ++p;
    size_t end = p;
    int depth = 0;
    char inQuote = 0;
    for (; end < h.size(); ++end) {
      char c = h[end];
      if (inQuote) {
        if (c == inQuote) inQuote = 0;
        continue;
      }
      if (c == '\'' || c == '"') inQuote = c;
      else if (c == '(' || c == '[') ++depth;
      else if (c == ')' || c == ']') --depth;
      else if ((c == ',' || c == '}') && depth == 0) break;
    }
    std::string_view v = h.substr(p, end - p);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  }
  return std::nullopt;
}

}  // namespace

Result<Tensor> parseNpy(std::string_view b, const std::string& label) {
  auto fail = [&](const std::string& m) { return Error::model("not a valid .npy file: " + m, label); };
  if (b.size() < 10 || b.substr(0, 6) != kMagic) return fail("the NumPy magic bytes are missing");
  const int major = static_cast<unsigned char>(b[6]);
  size_t headerLen = 0, headerStart = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(b[8]) | (static_cast<size_t>(static_cast<unsigned char>(b[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return fail("truncated header");
    for (int i = 3; i >= 0; --i) headerLen = (headerLen << 8) | static_cast<unsigned char>(b[8 + i]);
    headerStart = 12;
  } else {
    return fail("format version " + std::to_string(major) + " is not supported");
  }
  if (headerLen > b.size() - headerStart) return fail("the header runs past the end of the file");
  std::string_view h = b.substr(headerStart, headerLen);

  auto descrText = dictValue(h, "descr");
  if (!descrText || descrText->size() < 3 || ((*descrText)[0] != '\'' && (*descrText)[0] != '"'))
    return fail("no 'descr' in the header");
  std::string_view dstr = descrText->substr(1, descrText->size() - 2);
  auto descr = parseDescr(dstr);
  if (!descr) return Error::model("the .npy element type '" + std::string(dstr) + "' is not supported (numbers and bool only)", label);
  auto fortran = dictValue(h, "fortran_order");
  if (fortran && *fortran == "True")
    return Error::model("the .npy array is in Fortran order; save it in C order (np.ascontiguousarray)", label);
  auto shapeText = dictValue(h, "shape");
  if (!shapeText || shapeText->empty() || shapeText->front() != '(' || shapeText->back() != ')')
    return fail("no 'shape' tuple in the header");
  Tensor t;
  t.dtype = descr->dtype;
  std::string_view s = shapeText->substr(1, shapeText->size() - 2);
  int64_t numel = 1;
  while (!s.empty()) {
    while (!s.empty() && (s.front() == ' ' || s.front() == ',')) s.remove_prefix(1);
    if (s.empty()) break;
    int64_t d = 0;
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      d = d * 10 + (s[i] - '0');
      if (d > kMaxDim) return fail("a dimension is too large");
      ++i;
    }
    if (i == 0) return fail("the shape tuple holds something other than integers");
    if (d > 0 && numel > (int64_t(1) << 50) / d) return fail("the shape is too large");
    numel *= d;
    t.dims.push_back(d);
    s.remove_prefix(i);
  }
  const size_t dataStart = headerStart + headerLen;
  const size_t need = static_cast<size_t>(numel) * static_cast<size_t>(descr->size);
  if (b.size() - dataStart != need)
    return Error::model("the .npy data holds " + std::to_string(b.size() - dataStart) + " bytes, its shape " +
                            Shape::of(t.dims).str() + " of " + std::string(dtypeName(t.dtype)) + " needs " +
                            std::to_string(need),
                        label);
  std::string data(b.substr(dataStart));
  if (descr->bigEndian && descr->size > 1) {
    const size_t w = descr->dtype == DType::Complex64 || descr->dtype == DType::Complex128 ? descr->size / 2 : descr->size;
    for (size_t i = 0; i + w <= data.size(); i += w) std::reverse(data.begin() + static_cast<long>(i), data.begin() + static_cast<long>(i + w));
  }
  t.data = TensorBytes::owned(std::move(data));
  return t;
}

Result<Tensor> loadNpy(const std::filesystem::path& file) {
  auto bytes = readInputFile(file, uint64_t(1) << 40);  // a FIFO or a device is refused, not waited on
  if (!bytes) return bytes.error();
  auto t = parseNpy(*bytes, file.string());
  if (t) t->name = file.stem().string();
  return t;
}

Result<std::string> toNpy(const Tensor& t) {
  std::string descr;
  switch (t.dtype) {
    case DType::Float: descr = "<f4"; break;
    case DType::Double: descr = "<f8"; break;
    case DType::Float16: descr = "<f2"; break;
    case DType::Int8: descr = "|i1"; break;
    case DType::Int16: descr = "<i2"; break;
    case DType::Int32: descr = "<i4"; break;
    case DType::Int64: descr = "<i8"; break;
    case DType::UInt8: descr = "|u1"; break;
    case DType::UInt16: descr = "<u2"; break;
    case DType::UInt32: descr = "<u4"; break;
    case DType::UInt64: descr = "<u8"; break;
    case DType::Bool: descr = "|b1"; break;
    default: return Error::model("a " + std::string(dtypeName(t.dtype)) + " tensor has no .npy form", t.name);
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.dims.size(); ++i) shape += std::to_string(t.dims[i]) + (t.dims.size() == 1 || i + 1 < t.dims.size() ? "," : "");
  shape += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out += t.raw();
  return out;
}

}  // namespace msa
