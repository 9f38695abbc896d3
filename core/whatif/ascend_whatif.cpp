#include "whatif/ascend_whatif.h"

#include <algorithm>

#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "model/shape_inference.h"

namespace msa {
namespace {

// Vector ops whose high-performance implementation trades precision for fewer instructions
// (transcendentals and the normalisations built on them).
bool implModeOp(const Node& n) {
  static const std::set<std::string, std::less<>> ops = {"Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu", "Softmax",
                                                         "LogSoftmax", "LayerNormalization", "Sqrt", "Reciprocal",
                                                         "Div", "Pow", "HardSwish", "Mish", "Softplus"};
  return ops.count(n.opType) > 0;
}

// The high-performance implementation's share of the high-precision one's vector time: assumed
// (no public figure), stated as such in the variant's note.
constexpr double kImplModeShare = 0.5;

struct Pricing {
  enum class Mode { Fp32, Fp16, CubeFp16, Bf16, Hf32, Int8, ImplMode };
  Mode mode = Mode::Fp32;
};

// One node's seconds on `device` under `mode`: the roofline of its cost with its float32 work
// done in the mode's type (cube or every unit) and its float32 bytes at that type's width.
double price(const Node& n, const OpCost& cost, const DeviceProfile& device, Pricing::Mode mode) {
  RooflineOptions keep;
  keep.precision = RooflineOptions::Precision::Model;
  const NodeEstimate base = estimateNode(cost, n.opType, device, keep);
  if (base.elided || !cost.known || (!cost.movesData && cost.flops == 0)) return base.seconds;
  const bool cube = cost.unit == ComputeUnit::Cube;
  const bool float32 = cost.computeType == DType::Float;
  DType type = cost.computeType;
  double width = 1;  // bytes of a float32 element in the mode's type, over 4
  switch (mode) {
    case Pricing::Mode::Fp32:
    case Pricing::Mode::Hf32:
    case Pricing::Mode::ImplMode: break;
    case Pricing::Mode::Fp16:
      if (float32) type = DType::Float16, width = 0.5;
      break;
    case Pricing::Mode::CubeFp16:
      if (float32 && cube) type = DType::Float16, width = 0.5;
      break;
    case Pricing::Mode::Bf16:
      if (float32) type = DType::BFloat16, width = 0.5;
      break;
    case Pricing::Mode::Int8:
      if (float32 && cube) type = DType::Int8, width = 0.25;
      else if (float32) type = DType::Float16, width = 0.5;  // AMCT's model runs its other ops as ATC's default does
      break;
  }
  const double f32 = cost.float32Bytes > 0 || cost.computeType != DType::Float ? cost.float32Bytes : cost.bytes();
  const double bytes = cost.bytes() - f32 + f32 * width;
  double compute = 0;
  if (cost.flops > 0)
    if (auto p = device.peak(cost.unit, type)) compute = cost.flops / *p;
  if (mode == Pricing::Mode::ImplMode && !cube && implModeOp(n)) compute *= kImplModeShare;
  const double memory = device.memorySeconds(bytes);  // the one memory model, L2 included
  return std::max(compute, memory) + base.overheadSeconds;
}

}  // namespace

Status estimateAscendWhatIf(const Model& model, const WhatIfRequest& request, WhatIfResult& result, const Progress& progress) {
  auto device = loadDevice(request.device);
  if (!device) return device.error();
  if (device->kind != DeviceProfile::Kind::Npu)
    return Error::usage("what-if estimates variants on an NPU profile; '" + request.device + "' is a CPU (use --device cpu to measure)");
  result.device = device->id;
  result.estimated = true;
  result.runtime = "estimate: " + device->displayName;
  Model typed = model;
  ShapeOptions so;
  so.dims = request.inputs.dims;
  auto shapes = inferShapes(typed, so);
  if (!shapes) return shapes.error();
  progress.report("estimating", 0.2);
  const GraphCost cost = computeCosts(typed.graph);
  auto total = [&](Pricing::Mode mode, std::map<std::string, double>* perNode = nullptr) {
    double s = 0;
    for (size_t i = 0; i < typed.graph.nodes.size(); ++i) {
      const double t = price(typed.graph.nodes[i], cost.nodes[i], *device, mode);
      s += t;
      if (perNode) (*perNode)[typed.graph.nodes[i].name] = t;
    }
    return s * 1e3;
  };
  std::map<std::string, double> baseNodes;
  const double base = total(Pricing::Mode::Fp32, &baseNodes);
  result.baseline.median = result.baseline.p10 = result.baseline.p90 = base;
  result.optimumMs = base;
  result.notes.push_back("whatif.note.ascend_estimated");
  struct Spec {
    const char* name;
    VariantKind kind;
    Pricing::Mode mode;
    const char* option;
    const char* caveat;
    DType needs;  // the device must have a cube rate for it
  };
  const Spec specs[] = {
      {"fp16", VariantKind::Fp16, Pricing::Mode::Fp16,
       "ATC --precision_mode=force_fp16 (ATC's default); torch_npu: with torch.npu.amp.autocast(): …", "whatif.caveat.fp16",
       DType::Float16},
      {"fp16_cube_only", VariantKind::Fp16, Pricing::Mode::CubeFp16,
       "ATC --precision_mode=allow_fp32_to_fp16 (allow_mix_precision_fp16 lowers further by the built-in lists)",
       "whatif.caveat.fp16_mixed", DType::Float16},
      {"bf16", VariantKind::Bf16, Pricing::Mode::Bf16,
       "ATC --precision_mode=allow_fp32_to_bf16 (or allow_mix_precision_bf16); torch_npu: torch.npu.amp.autocast(dtype=torch.bfloat16)",
       "whatif.caveat.bf16", DType::BFloat16},
      {"hf32", VariantKind::Fp16, Pricing::Mode::Hf32,
       "torch_npu.npu.matmul.allow_hf32 = True (conv.allow_hf32 is on by default)", "whatif.caveat.hf32", DType::Float},
      {"int8_amct", VariantKind::Int8Amct, Pricing::Mode::Int8,
       "AMCT: amct_onnx.create_quant_config / quantize_model on calibration data, save_model, then ATC", "whatif.caveat.int8_amct",
       DType::Int8},
      {"impl_mode_high_performance", VariantKind::ImplMode, Pricing::Mode::ImplMode,
       "ATC --op_select_implmode=high_performance (per op: --optypelist_for_implmode)", "whatif.caveat.impl_mode", DType::Float},
  };
  for (const Spec& s : specs) {
    if (!request.only.empty() && !request.only.count(s.name) && !request.only.count(variantKindName(s.kind))) continue;
    if (!device->peak(ComputeUnit::Cube, s.needs)) continue;
    Variant v;
    v.name = s.name;
    v.kind = s.kind;
    v.estimated = true;
    v.option = s.option;
    v.notes.push_back(s.caveat);
    if (s.mode == Pricing::Mode::Hf32) v.notes.push_back("whatif.note.hf32_same_rate");
    if (s.mode == Pricing::Mode::ImplMode) v.notes.push_back("whatif.note.implmode_assumed");
    std::map<std::string, double> nodes;
    const double ms = total(s.mode, &nodes);
    v.latency.median = v.latency.p10 = v.latency.p90 = ms;
    v.speedup = ms > 0 ? base / ms : 0;
    v.predictedSpeedup = v.speedup;
    v.predictionMethod = "ascend_roofline";
    v.optimumMs = ms;
    v.model = model;
    for (const auto& [name, t] : nodes) {
      LayerEffect e;
      e.node = name;
      e.savedMs = (baseNodes[name] - t) * 1e3;
      v.layers.push_back(std::move(e));
    }
    result.variants.push_back(std::move(v));
  }
  progress.report("estimating", 1);
  return Ok{};
}

}  // namespace msa
