#include "model/dtype.h"

#include <array>

namespace msa {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  int size;
};

constexpr std::array<DTypeInfo, 23> kTypes{{
    {DType::Undefined, "undefined", 0},   {DType::Float, "float", 4},
    {DType::UInt8, "uint8", 1},           {DType::Int8, "int8", 1},
    {DType::UInt16, "uint16", 2},         {DType::Int16, "int16", 2},
    {DType::Int32, "int32", 4},           {DType::Int64, "int64", 8},
    {DType::String, "string", 0},         {DType::Bool, "bool", 1},
    {DType::Float16, "float16", 2},       {DType::Double, "double", 8},
    {DType::UInt32, "uint32", 4},         {DType::UInt64, "uint64", 8},
    {DType::Complex64, "complex64", 8},   {DType::Complex128, "complex128", 16},
    {DType::BFloat16, "bfloat16", 2},     {DType::Float8E4M3FN, "float8e4m3fn", 1},
    {DType::Float8E4M3FNUZ, "float8e4m3fnuz", 1}, {DType::Float8E5M2, "float8e5m2", 1},
    {DType::Float8E5M2FNUZ, "float8e5m2fnuz", 1}, {DType::UInt4, "uint4", 1},
    {DType::Int4, "int4", 1},
}};

const DTypeInfo* info(DType t) {
  auto i = static_cast<size_t>(t);
  return i < kTypes.size() ? &kTypes[i] : nullptr;
}

}  // namespace

int dtypeSize(DType t) {
  const DTypeInfo* i = info(t);
  return i ? i->size : 0;
}

std::string_view dtypeName(DType t) {
  const DTypeInfo* i = info(t);
  return i ? i->name : std::string_view("unknown");
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const auto& t : kTypes)
    if (t.name == name) return t.type;
  if (name == "float32") return DType::Float;
  if (name == "float64") return DType::Double;
  if (name == "fp16" || name == "half") return DType::Float16;
  if (name == "bf16") return DType::BFloat16;
  return std::nullopt;
}

bool isFloating(DType t) {
  switch (t) {
    case DType::Float: case DType::Float16: case DType::Double: case DType::BFloat16:
    case DType::Float8E4M3FN: case DType::Float8E4M3FNUZ: case DType::Float8E5M2:
    case DType::Float8E5M2FNUZ:
      return true;
    default:
      return false;
  }
}

bool isInteger(DType t) {
  switch (t) {
    case DType::UInt8: case DType::Int8: case DType::UInt16: case DType::Int16: case DType::Int32:
    case DType::Int64: case DType::UInt32: case DType::UInt64: case DType::UInt4: case DType::Int4:
      return true;
    default:
      return false;
  }
}

}  // namespace msa
