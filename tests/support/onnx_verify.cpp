#include "onnx_verify.h"

#include <climits>
#include <cmath>
#include <span>

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "model/onnx_io.h"
#include "profile/model_inputs.h"
#include "profile/ort_session.h"

namespace msa::test {

Status onnxCheck(std::string_view modelBytes) {
  onnx::ModelProto mp;
  if (modelBytes.size() > static_cast<size_t>(INT_MAX) ||
      !mp.ParseFromArray(modelBytes.data(), static_cast<int>(modelBytes.size())))
    return Error::model("the bytes do not parse as an ONNX model");
  try {
    onnx::checker::check_model(mp);
    onnx::ShapeInferenceOptions strict(true, 1, false);
    onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& e) {
    return Error::model(std::string("onnx checker: ") + e.what());
  }
  return Ok{};
}

Status onnxCheck(const Model& model) {
  auto bytes = serializeModel(model);
  if (!bytes) return bytes.error();
  return onnxCheck(*bytes);
}

Result<std::vector<OrtOutput>> ortRun(std::string_view modelBytes, const OrtRunOptions& options) {
  auto model = loadModelFromBytes(modelBytes, {}, "test model");
  if (!model) return model.error();
  InputOptions io;
  io.seed = options.seed;
  io.floatFill = InputOptions::FloatFill::Uniform;
  for (const auto& [k, v] : options.dims) io.dims[k] = v;
  for (const ValueInfo* in : runtimeInputs(model->graph))  // unbound symbolic dims run at 1
    if (in->type.shape)
      for (const Dim& d : in->type.shape->dims)
        if (!d.known() && !d.param.empty() && !io.dims.count(d.param)) io.dims[d.param] = 1;
  auto inputs = makeRandomInputs(*model, io);
  if (!inputs) return inputs.error();
  RuntimeOptions ro;
  ro.optimization = options.optimize ? GraphOptimization::All : GraphOptimization::Disabled;
  ro.intraOpThreads = 1;
  auto session = OrtSession::fromBytes(modelBytes, ro, "test model");
  if (!session) return session.error();
  auto results = session->run(std::span<const Tensor>(*inputs));
  if (!results) return results.error();
  std::vector<OrtOutput> out;
  for (size_t i = 0; i < results->size(); ++i) {
    const DataValue& v = (*results)[i];
    OrtOutput o;
    o.name = i < session->outputs().size() ? session->outputs()[i].name : v.name;
    if (v.kind == DataValue::Kind::Tensor) {
      o.dtype = v.tensor.dtype;
      o.shape = v.tensor.dims;
      o.values = v.tensor.toDouble();
      for (double d : o.values) o.finite = o.finite && std::isfinite(d);
    }
    out.push_back(std::move(o));
  }
  return out;
}

Result<std::vector<OrtOutput>> ortRun(const Model& model, const OrtRunOptions& options) {
  auto bytes = serializeModel(model);
  if (!bytes) return bytes.error();
  return ortRun(*bytes, options);
}

}  // namespace msa::test
