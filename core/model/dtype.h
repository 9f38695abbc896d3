#pragma once
// Element types, numbered as onnx::TensorProto::DataType so values pass through unchanged.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msa {

enum class DType : int32_t {
  Undefined = 0,
  Float = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  UInt32 = 12,
  UInt64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
  UInt4 = 21,
  Int4 = 22,
};

// Bytes per element; 0 for String/Undefined. Sub-byte types report 1 (rounded up per element).
int dtypeSize(DType t);
// Lower-case names as ONNX Runtime prints them: "float", "int64", "float16"…
std::string_view dtypeName(DType t);
std::optional<DType> dtypeFromName(std::string_view name);
bool isFloating(DType t);
bool isInteger(DType t);

}  // namespace msa
