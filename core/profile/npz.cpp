#include "profile/npz.h"

#include <zlib.h>

#include <cstring>

#include "model/mapped_file.h"
#include "profile/npy.h"

namespace msa {
namespace {

uint64_t le(std::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
  return v;
}

constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64End = 0x06064b50, kZip64Locator = 0x07064b50,
                   kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;

Result<std::string> inflateRaw(std::string_view in, uint64_t size, const std::string& label, const std::string& name) {
  std::string out(static_cast<size_t>(size), '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return Error::model("cannot start inflating '" + name + "'", label);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != size)
    return Error::model("the compressed array '" + name + "' is damaged (inflate stopped after " + std::to_string(produced) +
                            " of " + std::to_string(size) + " bytes)",
                        label);
  return out;
}

}  // namespace

Result<std::vector<std::pair<std::string, Tensor>>> parseNpz(std::string_view b, const std::string& label) {
  auto fail = [&](const std::string& m) { return Error::model("not a valid .npz archive: " + m, label); };
  if (b.size() < 22) return fail("too short for a zip archive");
  // The end-of-directory record: its signature within the last 64 KiB (a zip comment may follow it).
  size_t eocd = std::string_view::npos;
  for (size_t p = b.size() - 22;; --p) {
    if (le(b, p, 4) == kEndOfDirectory) {
      eocd = p;
      break;
    }
    if (p == 0 || b.size() - p > 65557) break;
  }
  if (eocd == std::string_view::npos) return fail("no zip end-of-directory record");
  uint64_t entries = le(b, eocd + 10, 2), dirSize = le(b, eocd + 12, 4), dirOffset = le(b, eocd + 16, 4);
  if ((entries == 0xFFFF || dirSize == 0xFFFFFFFF || dirOffset == 0xFFFFFFFF) && eocd >= 20 &&
      le(b, eocd - 20, 4) == kZip64Locator) {
    const uint64_t z64 = le(b, eocd - 20 + 8, 8);
    if (z64 > b.size() - 56 || le(b, static_cast<size_t>(z64), 4) != kZip64End) return fail("a damaged ZIP64 end record");
    entries = le(b, static_cast<size_t>(z64) + 32, 8);
    dirSize = le(b, static_cast<size_t>(z64) + 40, 8);
    dirOffset = le(b, static_cast<size_t>(z64) + 48, 8);
  }
  if (dirOffset > b.size() || dirSize > b.size() - dirOffset) return fail("the central directory lies outside the file");
  std::vector<std::pair<std::string, Tensor>> out;
  size_t p = static_cast<size_t>(dirOffset);
  const size_t end = static_cast<size_t>(dirOffset + dirSize);
  for (uint64_t e = 0; e < entries; ++e) {
    if (p + 46 > end || le(b, p, 4) != kDirectoryEntry) return fail("a damaged central directory entry");
    const uint64_t flags = le(b, p + 8, 2), method = le(b, p + 10, 2);
    uint64_t csize = le(b, p + 20, 4), usize = le(b, p + 24, 4), local = le(b, p + 42, 4);
    const size_t nameLen = le(b, p + 28, 2), extraLen = le(b, p + 30, 2), commentLen = le(b, p + 32, 2);
    if (p + 46 + nameLen + extraLen + commentLen > end) return fail("a central directory entry runs past its end");
    std::string name(b.substr(p + 46, nameLen));
    // ZIP64: the sizes and offset that did not fit are in the extra field, in this order.
    for (size_t x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen;) {
      const uint64_t id = le(b, x, 2), len = le(b, x + 2, 2);
      size_t f = x + 4;
      if (id == 0x0001) {
        for (uint64_t* field : {&usize, &csize, &local})
          if (*field == 0xFFFFFFFF && f + 8 <= x + 4 + len) {
            *field = le(b, f, 8);
            f += 8;
          }
      }
      x += 4 + static_cast<size_t>(len);
    }
    p += 46 + nameLen + extraLen + commentLen;
    if (flags & 1) return fail("'" + name + "' is encrypted");
    if (local > b.size() - 30 || le(b, static_cast<size_t>(local), 4) != kLocalHeader) return fail("a damaged local header for '" + name + "'");
    const size_t dataAt = static_cast<size_t>(local) + 30 + le(b, static_cast<size_t>(local) + 26, 2) + le(b, static_cast<size_t>(local) + 28, 2);
    if (dataAt > b.size() || csize > b.size() - dataAt) return fail("the data of '" + name + "' lies outside the file");
    if (usize > kMaxNpzArrayBytes)
      return Error::model("the array '" + name + "' holds " + std::to_string(usize) + " bytes, more than msadvisor reads", label);
    std::string_view data = b.substr(dataAt, static_cast<size_t>(csize));
    std::string inflated;
    if (method == 8) {
      auto r = inflateRaw(data, usize, label, name);
      if (!r) return r.error();
      inflated = std::move(*r);
      data = inflated;
    } else if (method != 0) {
      return fail("'" + name + "' uses zip compression method " + std::to_string(method) + " (stored and deflate are read)");
    } else if (csize != usize) {
      return fail("the stored array '" + name + "' has two sizes");
    }
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    auto t = parseNpy(data, label + ":" + name);
    if (!t) return t.error();
    t->name = name;
    out.emplace_back(name, std::move(*t));
  }
  return out;
}

Result<std::vector<std::pair<std::string, Tensor>>> loadNpz(const std::filesystem::path& file) {
  auto mapped = MappedFile::open(file);
  if (!mapped) return mapped.error();
  return parseNpz((*mapped)->bytes(), file.string());
}

}  // namespace msa
