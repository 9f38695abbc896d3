#include "model/tensor.h"

#include <cstring>

#include "model/half.h"
#include "model/mapped_file.h"
#include "model/tensor_file.h"

namespace msa {
namespace {

class OwnedBytes final : public TensorBytes {
 public:
  explicit OwnedBytes(std::string b) : m_bytes(std::move(b)) {}
  std::string_view bytes() const override { return m_bytes; }

 private:
  std::string m_bytes;
};

class MappedBytes final : public TensorBytes {
 public:
  MappedBytes(std::shared_ptr<const MappedFile> f, size_t off, size_t len)
      : m_file(std::move(f)), m_offset(off), m_length(len) {}
  std::string_view bytes() const override { return m_file->bytes().substr(m_offset, m_length); }
  FileView view() const { return {m_file.get(), m_offset, bytes().size()}; }

 private:
  std::shared_ptr<const MappedFile> m_file;
  size_t m_offset, m_length;
};

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) { mant <<= 1; --exp; }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // round to nearest even
  return static_cast<uint16_t>(half);
}

Tensor Tensor::fromDoubles(std::string name, DType dtype, std::vector<int64_t> dims, const std::vector<double>& v) {
  switch (dtype) {
    case DType::Double: return fromValues(std::move(name), dtype, std::move(dims), v);
    case DType::Float16: {
      std::vector<uint16_t> h(v.size());
      for (size_t i = 0; i < v.size(); ++i) h[i] = floatToHalf(static_cast<float>(v[i]));
      return fromValues(std::move(name), dtype, std::move(dims), h);
    }
    case DType::BFloat16: {
      std::vector<uint16_t> h(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        float f = static_cast<float>(v[i]);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        bits += 0x7fffu + ((bits >> 16) & 1);  // round to nearest even
        h[i] = static_cast<uint16_t>(bits >> 16);
      }
      return fromValues(std::move(name), dtype, std::move(dims), h);
    }
    default: {
      std::vector<float> f(v.begin(), v.end());
      return fromValues(std::move(name), DType::Float, std::move(dims), f);
    }
  }
}

FileView fileViewOf(const TensorBytes& bytes) {
  const auto* mapped = dynamic_cast<const MappedBytes*>(&bytes);
  return mapped ? mapped->view() : FileView{};
}

std::shared_ptr<const TensorBytes> TensorBytes::owned(std::string bytes) {
  return std::make_shared<OwnedBytes>(std::move(bytes));
}

std::shared_ptr<const TensorBytes> TensorBytes::mapped(std::shared_ptr<const MappedFile> file, size_t offset,
                                                       size_t length) {
  return std::make_shared<MappedBytes>(std::move(file), offset, length);
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d < 0 ? 0 : d;
  return n;
}

int64_t Tensor::byteSize() const { return numElements() * dtypeSize(dtype); }

std::vector<int64_t> Tensor::toInt64() const {
  std::vector<int64_t> out;
  std::string_view b = raw();
  int sz = dtypeSize(dtype);
  if (sz == 0 || (!isInteger(dtype) && dtype != DType::Bool)) return out;
  size_t n = std::min<size_t>(static_cast<size_t>(numElements()), b.size() / sz);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const char* p = b.data() + i * sz;
    switch (dtype) {
      case DType::Int64: out.push_back(load<int64_t>(p)); break;
      case DType::Int32: out.push_back(load<int32_t>(p)); break;
      case DType::Int16: out.push_back(load<int16_t>(p)); break;
      case DType::Int8: out.push_back(load<int8_t>(p)); break;
      case DType::UInt8: case DType::Bool: out.push_back(load<uint8_t>(p)); break;
      case DType::UInt16: out.push_back(load<uint16_t>(p)); break;
      case DType::UInt32: out.push_back(load<uint32_t>(p)); break;
      case DType::UInt64: out.push_back(static_cast<int64_t>(load<uint64_t>(p))); break;
      default: return {};
    }
  }
  return out;
}

std::vector<double> Tensor::toDouble() const {
  std::vector<double> out;
  if (isInteger(dtype) || dtype == DType::Bool) {
    for (int64_t v : toInt64()) out.push_back(static_cast<double>(v));
    return out;
  }
  std::string_view b = raw();
  int sz = dtypeSize(dtype);
  if (sz == 0) return out;
  size_t n = std::min<size_t>(static_cast<size_t>(numElements()), b.size() / sz);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const char* p = b.data() + i * sz;
    switch (dtype) {
      case DType::Float: out.push_back(load<float>(p)); break;
      case DType::Double: out.push_back(load<double>(p)); break;
      case DType::Float16: out.push_back(halfToFloat(load<uint16_t>(p))); break;
      case DType::BFloat16: {
        uint32_t bits = static_cast<uint32_t>(load<uint16_t>(p)) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        out.push_back(f);
        break;
      }
      default: return {};
    }
  }
  return out;
}

std::optional<double> Tensor::scalar() const {
  if (numElements() != 1) return std::nullopt;
  auto v = toDouble();
  if (v.size() != 1) return std::nullopt;
  return v[0];
}

}  // namespace msa
