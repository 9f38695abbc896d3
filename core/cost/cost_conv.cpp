// Convolutions: Conv, ConvTranspose and their quantized forms. MACs = output positions x
// (input channels per group) x kernel size; a bias adds one operation per output element.
#include "cost/cost_registry.h"
#include "cost/spatial.h"

namespace msa::cost {
namespace {

struct ConvInputs {
  size_t x = 0, w = 1, bias = 2;
};

DType outType(const CostContext& c) {
  DType t = c.outputType(0);
  return t != DType::Undefined ? t : c.mainType();
}

OpCost convCost(const CostContext& c, ConvInputs in) {
  auto x = c.inputDims(in.x);
  auto w = c.inputDims(in.w);
  if (!x || !w) return unknownCost(missingShapeReason(c, true, false));
  if (x->size() < 3 || w->size() != x->size())
    return unknownCost("Conv input rank " + std::to_string(x->size()) + " and weight rank " +
                       std::to_string(w->size()) + " do not match");
  std::vector<double> writeOverride;
  auto y = c.outputDims(0);
  if (!y) {
    y = convOutputDims(c.node(), *x, *w);
    if (!y) return unknownCost(missingShapeReason(c, false, true));
    writeOverride = {tensorBytes(*y, outType(c))};
  }
  const double batch = static_cast<double>((*x)[0]);
  const double outChannels = static_cast<double>((*w)[0]);
  const double outSpatial = static_cast<double>(product(*y, 2));
  const double inPerGroup = static_cast<double>((*w)[1]);
  const double kernel = static_cast<double>(product(*w, 2));
  OpCost cost;
  cost.unit = ComputeUnit::Cube;
  cost.computeType = c.inputType(in.x);
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.macs = batch * outChannels * outSpatial * inPerGroup * kernel;
  cost.flops = 2 * cost.macs + (c.hasInput(in.bias) ? batch * outChannels * outSpatial : 0.0);
  return cost;
}

OpCost conv(const CostContext& c) { return convCost(c, {}); }
OpCost convInteger(const CostContext& c) { return convCost(c, {0, 1, SIZE_MAX}); }
OpCost qlinearConv(const CostContext& c) { return convCost(c, {0, 3, 8}); }

// Every input pixel is scattered through the kernel into the output: MACs = input positions x
// (output channels per group) x kernel size.
OpCost convTranspose(const CostContext& c) {
  auto x = c.inputDims(0);
  auto w = c.inputDims(1);
  if (!x || !w) return unknownCost(missingShapeReason(c, true, false));
  if (x->size() < 3 || w->size() != x->size())
    return unknownCost("ConvTranspose input rank " + std::to_string(x->size()) + " and weight rank " +
                       std::to_string(w->size()) + " do not match");
  std::vector<double> writeOverride;
  auto y = c.outputDims(0);
  if (!y) {
    y = convTransposeOutputDims(c.node(), *x, *w);
    if (!y) return unknownCost(missingShapeReason(c, false, true));
    writeOverride = {tensorBytes(*y, outType(c))};
  }
  const double batch = static_cast<double>((*x)[0]);
  const double inChannels = static_cast<double>((*x)[1]);
  const double inSpatial = static_cast<double>(product(*x, 2));
  const double outPerGroup = static_cast<double>((*w)[1]);
  const double kernel = static_cast<double>(product(*w, 2));
  OpCost cost;
  cost.unit = ComputeUnit::Cube;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.macs = batch * inChannels * inSpatial * outPerGroup * kernel;
  cost.flops = 2 * cost.macs + (c.hasInput(2) ? static_cast<double>(product(*y)) : 0.0);
  return cost;
}

}  // namespace

void registerConvCosts(CostRegistry& r) {
  r.add("Conv", conv);
  r.add("ConvInteger", convInteger);
  r.add("QLinearConv", qlinearConv);
  r.add("ConvTranspose", convTranspose);
  r.add("FusedConv", conv, "com.microsoft");  // Conv + activation, as ONNX Runtime fuses it
}

}  // namespace msa::cost
