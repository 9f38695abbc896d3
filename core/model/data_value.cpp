#include "model/data_value.h"
#include "util/input_file.h"

#include <climits>
#include <fstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "model/onnx_proto.h"

#include <onnx/onnx-data_pb.h>

namespace fs = std::filesystem;

namespace msa {
namespace {

constexpr int kMaxNesting = 16;

template <typename M>
bool parseBytes(std::string_view bytes, M& m) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;
  google::protobuf::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&in);
  coded.SetTotalBytesLimit(INT_MAX);
  return m.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

Result<DataValue> fromTensor(onnx::TensorProto& tp, const std::string& label) {
  auto t = fromProto(tp, {}, label);
  if (!t) return t.error();
  if (!t->hasData()) return Error::model("the tensor holds no data", label);
  return DataValue::of(std::move(*t));
}

Result<DataValue> fromOptional(onnx::OptionalProto& op, const std::string& label, int depth);

Result<DataValue> fromSequence(onnx::SequenceProto& sp, const std::string& label, int depth) {
  if (depth > kMaxNesting) return Error::model("sequences nested too deeply", label);
  DataValue v;
  v.kind = DataValue::Kind::Sequence;
  v.name = sp.name();
  switch (sp.elem_type()) {
    case onnx::SequenceProto::TENSOR:
    case onnx::SequenceProto::UNDEFINED:
      for (auto& t : *sp.mutable_tensor_values()) {
        auto e = fromTensor(t, label);
        if (!e) return e.error();
        if (v.sequenceElemType == DType::Undefined) v.sequenceElemType = e->tensor.dtype;
        v.elements.push_back(std::move(*e));
      }
      break;
    case onnx::SequenceProto::SEQUENCE:
      for (auto& s : *sp.mutable_sequence_values()) {
        auto e = fromSequence(s, label, depth + 1);
        if (!e) return e.error();
        v.elements.push_back(std::move(*e));
      }
      break;
    case onnx::SequenceProto::OPTIONAL:
      for (auto& o : *sp.mutable_optional_values()) {
        auto e = fromOptional(o, label, depth + 1);
        if (!e) return e.error();
        v.elements.push_back(std::move(*e));
      }
      break;
    default:
      return Error::model("sequence of element kind " + std::to_string(sp.elem_type()) +
                              " (sparse tensors, maps) is not supported",
                          label);
  }
  return v;
}

Result<DataValue> fromOptional(onnx::OptionalProto& op, const std::string& label, int depth) {
  if (depth > kMaxNesting) return Error::model("optionals nested too deeply", label);
  DataValue v;
  v.kind = DataValue::Kind::Optional;
  v.name = op.name();
  Result<DataValue> inner = Error::model("", label);
  if (op.has_tensor_value()) inner = fromTensor(*op.mutable_tensor_value(), label);
  else if (op.has_sequence_value()) inner = fromSequence(*op.mutable_sequence_value(), label, depth + 1);
  else if (op.has_optional_value()) inner = fromOptional(*op.mutable_optional_value(), label, depth + 1);
  else return v;  // none
  if (!inner) return inner.error();
  v.elements.push_back(std::move(*inner));
  return v;
}

}  // namespace

std::string DataValue::describe() const {
  switch (kind) {
    case Kind::Tensor: {
      std::string s(dtypeName(tensor.dtype));
      s += Shape::of(tensor.dims).str();
      return s;
    }
    case Kind::Sequence: {
      std::string s = "sequence<";
      for (size_t i = 0; i < elements.size(); ++i) s += (i ? "," : "") + elements[i].describe();
      return s + ">";
    }
    case Kind::Optional: return elements.empty() ? "optional(none)" : "optional(" + elements[0].describe() + ")";
  }
  return {};
}

Result<DataValue> parseDataValue(std::string_view bytes, TypeInfo::Kind expected, const std::string& label) {
  try {
    if (expected == TypeInfo::Kind::Sequence) {
      onnx::SequenceProto sp;
      if (!parseBytes(bytes, sp)) return Error::model("not a serialized onnx.SequenceProto", label);
      return fromSequence(sp, label, 0);
    }
    if (expected == TypeInfo::Kind::Optional) {
      onnx::OptionalProto op;
      if (!parseBytes(bytes, op)) return Error::model("not a serialized onnx.OptionalProto", label);
      return fromOptional(op, label, 0);
    }
    onnx::TensorProto tp;
    if (bytes.empty() || !parseBytes(bytes, tp)) return Error::model("not a serialized onnx.TensorProto", label);
    if (tp.data_location() == onnx::TensorProto::EXTERNAL)
      return Error::model("the tensor refers to external data, which a lone .pb file cannot carry", label);
    return fromTensor(tp, label);
  } catch (const std::exception& e) {
    return Error::model(std::string("cannot read: ") + e.what(), label);
  }
}

Result<DataValue> loadDataValue(const fs::path& file, TypeInfo::Kind expected) {
  const std::string label = file.string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return Error::model("no such file", label);
  auto size = fs::file_size(file, ec);
  if (ec) return Error::model("cannot read: " + ec.message(), label);
  if (size > static_cast<uintmax_t>(INT_MAX)) return Error::model("larger than 2 GB, the protobuf limit", label);
  auto bytes = readInputFile(file, static_cast<uint64_t>(INT_MAX));  // a FIFO or a device is refused, not waited on
  if (!bytes) return Error::model(bytes.error().message, label);
  return parseDataValue(*bytes, expected, label);
}

}  // namespace msa
