#pragma once
// int8 static quantization in the QDQ format ONNX Runtime's quantize_static writes: every
// activation an int8 kernel reads or writes passes through a QuantizeLinear → DequantizeLinear
// pair (uint8, its range calibrated), weights are int8 per output channel behind a
// DequantizeLinear with the channel axis, biases int32 at input scale × weight scale. ONNX
// Runtime's CPU provider turns each unit at load into its int8 kernel (QLinearConv, QLinearMatMul
// or MatMulIntegerToFloat, QGemm, QLinearAdd/Mul/Concat/Sigmoid/LeakyRelu/AveragePool/
// GlobalAveragePool; MaxPool, Resize, Reshape, Transpose… run on the uint8 values with the Q/DQ
// around them dropped), and drops a Relu or a Clip(0, 6) whose output is quantized from 0
// (ReluQuantFusion, ClipQuantFusion). What runs in int8 (docs/whatif.md, "int8 static"):
//  - the layers: Conv, MatMul and Gemm with constant weights;
//  - their neighbours, when one of their inputs comes from an int8 node: Add and Mul of two
//    activations, Concat, the pools, Sigmoid, LeakyRelu;
//  - data movement (MaxPool, Resize, Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Slice…)
//    after an int8 node, at its input's scale.
// Graph outputs stay float; MatMul/Gemm outputs are quantized only for an int8 consumer.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/graph.h"
#include "util/error.h"
#include "whatif/calibration.h"
#include "whatif/quant_layers.h"
#include "whatif/quantize_dynamic.h"

namespace msa {

struct StaticPlan {
  std::vector<QuantLayer> layers;           // the layers computed in int8 (not kept in float)
  std::set<std::string, std::less<>> nodes;  // every node computed in int8: layers, neighbours, data movement
  std::vector<std::string> tensors;         // activations quantized with their own calibrated range, in execution order
  std::map<std::string, std::string> sameAs;  // a data-movement output -> the tensor whose scale it keeps
  std::map<std::string, std::string> absorbed;  // layer -> the Relu/Clip it writes through (its output is quantized)
};

// Every activation a plan with layers kept in float may quantize with its own range: the plan's
// tensors and its data-movement outputs (which keep their input's scale only while their input is
// int8). Calibrate these once; every mix of int8 and float layers then finds its ranges.
std::vector<std::string> calibrationTensors(const StaticPlan& plan);

// The model's shapes should be inferred (float activations are recognised by type).
StaticPlan planStatic(const Model& model, const std::set<std::string, std::less<>>& keepFloat = {});

// The QDQ model for `plan` with each tensor's range from `ranges` (every plan tensor needs one).
// Needs ai.onnx opset 13 (per-axis DequantizeLinear).
Result<QuantizedModel> quantizeStatic(const Model& model, const StaticPlan& plan, const std::map<std::string, Range>& ranges);

// Per-layer sensitivity (mixed precision): beside every layer, a copy that reads its input
// quantized as the variant would (QDQ with the calibrated range, or DynamicQuantizeLinear →
// DequantizeLinear for dynamic quantization) and its quantized weights, and writes its output
// quantized as the variant would. Run with the runtime's optimizer disabled (the pairs compute in
// float what the int8 kernel computes), the two outputs differ by the error this layer alone adds.
struct ShadowModel {
  Model model;
  struct Pair {
    std::string layer, reference, shadow;  // the reference tensor of the float model and its shadow
  };
  std::vector<Pair> pairs;
};
enum class ShadowKind { Static, Dynamic };
Result<ShadowModel> shadowModel(const Model& model, ShadowKind kind, const std::vector<QuantLayer>& layers,
                                const StaticPlan* plan, const std::map<std::string, Range>* ranges, bool perChannel);

}  // namespace msa
