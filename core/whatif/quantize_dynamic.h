#pragma once
// int8 dynamic quantization of MatMul/Gemm weights, in the form ONNX Runtime's quantize_dynamic
// writes it: the activation quantized at run time (DynamicQuantizeLinear, uint8), the weight int8
// symmetric per output column or per tensor, MatMulInteger, then Cast and Mul by the product of
// the scales (and the bias Add). ONNX Runtime's CPU provider fuses this at load
// (MatMulIntegerToFloatFusion, then DynamicQuantizeMatMulFusion) into com.microsoft
// DynamicQuantizeMatMul, or MatMulIntegerToFloat where several layers share one quantized
// activation. Standard ONNX (opset 11 or later): other runtimes run it too.
#include <set>
#include <string>
#include <vector>

#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct QuantizedModel {
  Model model;
  std::vector<std::string> layers;  // the nodes now computed in int8 (their names in the float model)
};

struct DynamicQuantOptions {
  bool perChannel = true;
  std::set<std::string, std::less<>> keepFloat;  // layer names left in float (mixed precision)
};

// Quantizes every quantizableLayers(…, false) layer not kept in float. The model's shapes should
// be inferred (activations' types decide what is quantized).
Result<QuantizedModel> quantizeDynamic(const Model& model, const DynamicQuantOptions& options);

}  // namespace msa
