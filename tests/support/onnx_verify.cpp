#include "onnx_verify.h"

#include <climits>
#include <cmath>
#include <cstring>

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnxruntime_cxx_api.h>

#include "model/onnx_io.h"
#include "model_builder.h"

namespace msa::test {
namespace {

Ort::Env& ortEnv() {
  static Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "msa-tests");
  return env;
}

template <typename T>
void appendValues(const Ort::Value& v, size_t n, std::vector<double>& out, bool& finite) {
  const T* p = v.GetTensorData<T>();
  for (size_t i = 0; i < n; ++i) {
    double d = static_cast<double>(p[i]);
    if (!std::isfinite(d)) finite = false;
    out.push_back(d);
  }
}

}  // namespace

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
  try {
    Ort::SessionOptions so;
    so.SetIntraOpNumThreads(1);
    so.SetInterOpNumThreads(1);
    so.SetGraphOptimizationLevel(options.optimize ? GraphOptimizationLevel::ORT_ENABLE_ALL
                                                  : GraphOptimizationLevel::ORT_DISABLE_ALL);
    Ort::Session session(ortEnv(), modelBytes.data(), modelBytes.size(), so);
    Ort::AllocatorWithDefaultOptions alloc;
    Ort::MemoryInfo mem = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    SeededRandom random(options.seed);

    std::vector<std::string> inNames, outNames;
    std::vector<std::string> buffers;  // owns the input bytes
    std::vector<Ort::Value> inputs;
    const size_t nIn = session.GetInputCount();
    buffers.reserve(nIn);
    for (size_t i = 0; i < nIn; ++i) {
      inNames.push_back(session.GetInputNameAllocated(i, alloc).get());
      Ort::TypeInfo typeInfo = session.GetInputTypeInfo(i);  // the shape view below points into it
      auto info = typeInfo.GetTensorTypeAndShapeInfo();
      std::vector<int64_t> shape = info.GetShape();
      std::vector<const char*> sym(shape.size(), nullptr);
      info.GetSymbolicDimensions(sym.data(), sym.size());
      size_t count = 1;
      for (size_t a = 0; a < shape.size(); ++a) {
        if (shape[a] < 0) {
          auto it = sym[a] ? options.dims.find(sym[a]) : options.dims.end();
          shape[a] = it != options.dims.end() ? it->second : 1;
        }
        count *= static_cast<size_t>(shape[a]);
      }
      auto et = info.GetElementType();
      int esize = dtypeSize(static_cast<DType>(et));
      if (esize == 0) return Error::device("input '" + inNames.back() + "' has an unsupported element type");
      buffers.emplace_back(count * static_cast<size_t>(esize), '\0');
      std::string& buf = buffers.back();
      if (et == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)
        for (size_t k = 0; k < count; ++k) {
          float f = static_cast<float>(random.uniform(-1, 1));
          std::memcpy(buf.data() + k * 4, &f, 4);
        }
      inputs.push_back(Ort::Value::CreateTensor(mem, buf.data(), buf.size(), shape.data(), shape.size(), et));
    }
    for (size_t i = 0; i < session.GetOutputCount(); ++i) outNames.push_back(session.GetOutputNameAllocated(i, alloc).get());
    std::vector<const char*> inPtr, outPtr;
    for (const auto& n : inNames) inPtr.push_back(n.c_str());
    for (const auto& n : outNames) outPtr.push_back(n.c_str());
    auto results = session.Run(Ort::RunOptions{nullptr}, inPtr.data(), inputs.data(), inputs.size(), outPtr.data(),
                               outPtr.size());
    std::vector<OrtOutput> out;
    for (size_t i = 0; i < results.size(); ++i) {
      OrtOutput o;
      o.name = outNames[i];
      if (!results[i].IsTensor()) {
        out.push_back(std::move(o));
        continue;
      }
      auto info = results[i].GetTensorTypeAndShapeInfo();
      o.shape = info.GetShape();
      o.dtype = static_cast<DType>(info.GetElementType());
      size_t n = info.GetElementCount();
      switch (info.GetElementType()) {
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: appendValues<float>(results[i], n, o.values, o.finite); break;
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: appendValues<double>(results[i], n, o.values, o.finite); break;
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: appendValues<int64_t>(results[i], n, o.values, o.finite); break;
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: appendValues<int32_t>(results[i], n, o.values, o.finite); break;
        default: break;
      }
      out.push_back(std::move(o));
    }
    return out;
  } catch (const std::exception& e) {
    return Error::device(std::string("ONNX Runtime: ") + e.what());
  }
}

Result<std::vector<OrtOutput>> ortRun(const Model& model, const OrtRunOptions& options) {
  auto bytes = serializeModel(model);
  if (!bytes) return bytes.error();
  return ortRun(*bytes, options);
}

}  // namespace msa::test
