#pragma once
// Tensor values (initializers and attribute tensors). The bytes are immutable and shared, so
// copying a Graph for undo or for a trial rewrite never copies weights.
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/dtype.h"

namespace msa {

class MappedFile;

// Raw little-endian element bytes, owned or viewed in a mapped file.
class TensorBytes {
 public:
  virtual ~TensorBytes() = default;
  virtual std::string_view bytes() const = 0;

  static std::shared_ptr<const TensorBytes> owned(std::string bytes);
  static std::shared_ptr<const TensorBytes> mapped(std::shared_ptr<const MappedFile> file, size_t offset,
                                                   size_t length);
};

// Where an external tensor lives, as written in the file (kept for a faithful export).
struct ExternalLocation {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  std::vector<std::pair<std::string, std::string>> extra;  // checksum and unknown keys
};

struct Tensor {
  std::string name;
  DType dtype = DType::Undefined;
  std::vector<int64_t> dims;
  std::shared_ptr<const TensorBytes> data;  // null for string tensors and tensors without data
  std::vector<std::string> strings;         // string tensors only
  std::optional<ExternalLocation> external;
  std::string docString;
  std::string unknownFields;  // serialized fields the IR does not model, restored on export

  int64_t numElements() const;
  int64_t byteSize() const;  // numElements() * element size
  std::string_view raw() const { return data ? data->bytes() : std::string_view(); }
  bool hasData() const { return data != nullptr || !strings.empty() || numElements() == 0; }

  // Values converted to int64 / double whatever the integer or float dtype; empty if unsupported.
  std::vector<int64_t> toInt64() const;
  std::vector<double> toDouble() const;
  std::optional<double> scalar() const;  // single-element tensors

  // A float/double/float16/bfloat16 tensor from doubles (rounded once to the dtype).
  static Tensor fromDoubles(std::string name, DType dtype, std::vector<int64_t> dims, const std::vector<double>& v);

  template <typename T>
  static Tensor fromValues(std::string name, DType dtype, std::vector<int64_t> dims, const std::vector<T>& v) {
    Tensor t;
    t.name = std::move(name);
    t.dtype = dtype;
    t.dims = std::move(dims);
    std::string b(v.size() * sizeof(T), '\0');
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    t.data = TensorBytes::owned(std::move(b));
    return t;
  }
};

}  // namespace msa
