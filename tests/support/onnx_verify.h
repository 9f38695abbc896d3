#pragma once
// External yardsticks for models the tests write: ONNX's own checker (with strict shape
// inference, like onnx.checker.check_model(full_check=True)) and one run in ONNX Runtime through
// the product's wrapper (core/profile/ort_session.h) on seeded inputs (profile/model_inputs.h).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph.h"
#include "util/error.h"

namespace msa::test {

// onnx::checker::check_model + strict shape inference on serialized model bytes.
Status onnxCheck(std::string_view modelBytes);
Status onnxCheck(const Model& model);

struct OrtOutput {
  std::string name;
  DType dtype = DType::Undefined;
  std::vector<int64_t> shape;
  bool finite = true;         // no NaN/Inf in a float output
  std::vector<double> values;  // float and integer outputs, converted
};

struct OrtRunOptions {
  std::map<std::string, int64_t> dims;  // values for symbolic input dims (default 1)
  uint64_t seed = 7;                    // float inputs uniform in [-1, 1); integers as model_inputs.h
  bool optimize = true;                 // ORT_ENABLE_ALL, otherwise ORT_DISABLE_ALL
};

// Creates an ONNX Runtime CPU session from the model bytes and runs it once.
Result<std::vector<OrtOutput>> ortRun(std::string_view modelBytes, const OrtRunOptions& options = {});
Result<std::vector<OrtOutput>> ortRun(const Model& model, const OrtRunOptions& options = {});

}  // namespace msa::test
