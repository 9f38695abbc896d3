#pragma once
// The arithmetic of int8 quantization as ONNX Runtime's quantizer does it: weights int8
// symmetric in [-127, 127] (zero point 0), per output channel or per tensor; activations uint8
// asymmetric over a calibrated range that always holds 0; biases int32 at the scale
// input scale × weight scale, zero point 0. Rounding is half to even, as QuantizeLinear rounds.
#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"

namespace msa {

struct ActivationQuant {
  float scale = 1;
  uint8_t zeroPoint = 0;
};

// uint8 over [lo, hi] widened to hold 0 (a zero must be exact: padding, ReLU's floor). A range of
// zero width gets scale 1, as the runtime's quantizer gives it.
ActivationQuant activationQuant(double lo, double hi);

struct WeightQuant {
  Tensor values;      // int8, the weight's dims
  Tensor scales;      // float: [channels] per channel, [] per tensor
  Tensor zeroPoints;  // int8 zeros, the scales' dims
  int axis = -1;      // the channel axis; -1 per tensor
  std::vector<float> scaleValues;
};

// Quantizes a float weight (float32 or float16 data) per channel along `axis`, or per tensor when
// axis < 0. `base` names the three tensors ("<base>_quantized", "_scale", "_zero_point").
WeightQuant quantizeWeight(const Tensor& w, int axis, const std::string& base);

// The int32 bias for a Conv/Gemm whose input has `inputScale` and weights `weightScales` (one
// per channel, or one for all); values beyond int32 saturate.
Tensor quantizeBias(const Tensor& b, double inputScale, const std::vector<float>& weightScales, const std::string& name);
// Its scales (input scale × each weight scale) as a float tensor of the bias's length.
Tensor biasScales(size_t channels, double inputScale, const std::vector<float>& weightScales, const std::string& name);

// Scalar initializers for a QuantizeLinear/DequantizeLinear pair.
Tensor scalarFloat(const std::string& name, float v);
Tensor scalarUint8(const std::string& name, uint8_t v);

// A weight's float values (float32, float16, bfloat16, double), empty for other types.
std::vector<float> floatValues(const Tensor& t);

}  // namespace msa
