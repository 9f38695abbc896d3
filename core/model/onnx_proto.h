#pragma once
// IR <-> onnx::ModelProto conversion, for the few core parts that need protobuf (shape inference,
// the checker). Everything else uses onnx_io.h.
#include <filesystem>
#include <functional>
#include <string>

#include <onnx/onnx_pb.h>

#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct ProtoOptions {
  bool keepGeneratedNames = false;
  // Initializers above this size (bytes) are written without data and declared as typed graph
  // inputs instead: what shape inference and the checker need, without copying weights.
  int64_t stripInitializersAbove = -1;
  // When set, called for each tensor that should be written as external data; it returns the
  // location record to store (or an error). Otherwise every tensor is written inline.
  std::function<Result<ExternalLocation>(const Tensor&)> externalWriter;
};

Status toProto(const Model& model, onnx::ModelProto& out, const ProtoOptions& options = {});
void toProto(const Graph& g, onnx::GraphProto& out, const ProtoOptions& options);
void toProto(const Node& n, onnx::NodeProto& out, const ProtoOptions& options);
void toProto(const Tensor& t, onnx::TensorProto& out);
void toProto(const TypeInfo& t, onnx::TypeProto& out);
TypeInfo fromProto(const onnx::TypeProto& t);
// Moves the tensor's bytes out of `tp` (no copy); `label` names the source in errors.
Result<Tensor> fromProto(onnx::TensorProto& tp, const std::filesystem::path& baseDir, const std::string& label);

}  // namespace msa
