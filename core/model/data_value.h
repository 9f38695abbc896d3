#pragma once
// Values as ONNX test data and runtimes exchange them: a tensor, a sequence of values, or an
// optional value. Reading them is protobuf work, so it lives here with the rest of model I/O.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct DataValue {
  enum class Kind { Tensor, Sequence, Optional };
  Kind kind = Kind::Tensor;
  std::string name;                 // as stored in the file (may be empty)
  Tensor tensor;                    // Kind::Tensor
  std::vector<DataValue> elements;  // Sequence: its elements; Optional: none (empty) or one
  DType sequenceElemType = DType::Undefined;  // an empty sequence still has an element type

  static DataValue of(Tensor t) {
    DataValue v;
    v.name = t.name;
    v.tensor = std::move(t);
    return v;
  }
  std::string describe() const;  // "float[1,3]", "sequence<float[2],float[3]>", "optional(none)"
};

// Parses a serialized TensorProto, SequenceProto or OptionalProto. A .pb file does not say which
// message it holds, so `expected` (from the model's input or output type) picks one; Kind::None
// means a tensor.
Result<DataValue> parseDataValue(std::string_view bytes, TypeInfo::Kind expected, const std::string& label);
Result<DataValue> loadDataValue(const std::filesystem::path& file, TypeInfo::Kind expected);

}  // namespace msa
