// Data movement and metadata: ops that copy, gather or resample bytes, and ops that only
// rewrite a tensor's shape (no bytes move, nothing is computed).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "cost/cost_registry.h"
#include "model/shape_values.h"

namespace msa::cost {
namespace {

// Reshape, Flatten, Squeeze, Unsqueeze: a new view of the same bytes. Identity and inference
// Dropout alias their input. Shape and Size read metadata only; Constant is baked in.
OpCost metadataOnly(const CostContext& c) {
  OpCost cost;
  cost.known = true;
  cost.movesData = false;
  cost.unit = ComputeUnit::None;
  cost.computeType = c.mainType();
  return cost;
}

OpCost dropout(const CostContext& c) {
  // Training mode (a constant true third input) draws a mask: elementwise work.
  if (const Tensor* t = c.inputConstant(2); t && t->scalar().value_or(0) != 0) {
    auto y = c.outputDims(0);
    if (!y) return unknownCost(missingShapeReason(c, false, true));
    OpCost cost;
    cost.unit = ComputeUnit::Vector;
    if (!addIoBytes(c, cost)) return cost;
    cost.flops = 3 * static_cast<double>(product(*y));  // random draw, compare, scale
    return cost;
  }
  return metadataOnly(c);
}

// Copies: every input read once, every output written once, nothing computed.
OpCost copy(const CostContext& c) {
  OpCost cost;
  cost.unit = ComputeUnit::Memory;
  addIoBytes(c, cost);
  return cost;
}

// Split when inference left the outputs unknown: sizes from the split input or attribute, or
// equal parts (the last one smaller when the axis does not divide, as in Split-18).
OpCost split(const CostContext& c) {
  bool outputsKnown = true;
  for (size_t i = 0; i < c.outputCount(); ++i) outputsKnown &= !c.hasOutput(i) || c.outputDims(i).has_value();
  if (outputsKnown) return copy(c);
  auto x = c.inputDims(0);
  if (!x || x->empty()) return unknownCost(missingShapeReason(c, true, false));
  int64_t axis = c.node().attrInt("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(x->size());
  if (axis < 0 || axis >= static_cast<int64_t>(x->size())) return unknownCost("Split axis out of range");
  const int64_t len = (*x)[static_cast<size_t>(axis)];
  Dims sizes = c.node().attrInts("split");
  if (c.hasInput(1)) {
    auto v = c.inputInts(1);
    if (!v) return unknownCost(missingShapeReason(c, false, true) + " (split sizes computed at run time)");
    sizes = *v;
  }
  const int64_t parts = static_cast<int64_t>(c.outputCount());
  if (sizes.empty() && parts > 0) {
    const int64_t each = (len + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::max<int64_t>(0, std::min(each, len - i * each)));
  }
  int64_t sum = 0;
  for (int64_t v : sizes) sum += v;
  if (static_cast<int64_t>(sizes.size()) != parts || sum != len)
    return unknownCost("Split sizes do not match its outputs and the axis length");
  std::vector<double> writeOverride;
  for (int64_t s : sizes) {
    Dims y = *x;
    y[static_cast<size_t>(axis)] = s;
    writeOverride.push_back(tensorBytes(y, c.inputType(0)));
  }
  OpCost cost;
  cost.unit = ComputeUnit::Memory;
  addIoBytes(c, cost, {}, writeOverride);
  return cost;
}

// Slice reads only the elements it keeps.
OpCost slice(const CostContext& c) {
  auto y = c.outputDims(0);
  if (!y) return unknownCost(missingShapeReason(c, false, true));
  OpCost cost;
  cost.unit = ComputeUnit::Memory;
  DType t = c.inputType(0);
  addIoBytes(c, cost, {tensorBytes(*y, t)});
  return cost;
}

// Gather, GatherElements, GatherND: the indices, plus one data element per output element.
OpCost gather(const CostContext& c) {
  auto y = c.outputDims(0);
  if (!y) return unknownCost(missingShapeReason(c, false, true));
  OpCost cost;
  cost.unit = ComputeUnit::Memory;
  addIoBytes(c, cost, {tensorBytes(*y, c.inputType(0))});
  return cost;
}

// Expand when inference left the output unknown: broadcast the input with a constant shape.
OpCost expand(const CostContext& c) {
  if (c.outputDims(0)) return copy(c);
  auto x = c.inputDims(0);
  auto shape = c.inputInts(1);
  if (!x || !shape) return unknownCost(missingShapeReason(c, false, true));
  auto y = broadcastDims(*x, *shape);
  if (!y) return unknownCost("Expand shape does not broadcast");
  OpCost cost;
  cost.unit = ComputeUnit::Memory;
  addIoBytes(c, cost, {}, {tensorBytes(*y, c.inputType(0))});
  return cost;
}

// ConstantOfShape writes its output; the shape input is a few integers.
OpCost constantOfShape(const CostContext& c) {
  if (c.outputDims(0)) return copy(c);
  auto shape = c.inputInts(0);
  if (!shape) return unknownCost(missingShapeReason(c, false, true) + " (the shape is computed at run time)");
  DType t = c.outputType(0) != DType::Undefined ? c.outputType(0) : DType::Float;
  OpCost cost;
  cost.unit = ComputeUnit::Memory;
  addIoBytes(c, cost, {}, {tensorBytes(*shape, t)});
  return cost;
}

// One addition per output element; the length depends on the values of start/limit/delta.
OpCost range(const CostContext& c) {
  std::optional<Dims> y = c.outputDims(0);
  std::vector<double> writeOverride;
  if (!y) {
    double v[3] = {0, 0, 0};
    for (size_t i = 0; i < 3; ++i) {
      const Tensor* t = c.inputConstant(i);
      std::optional<double> s = t ? t->scalar() : std::nullopt;
      if (!s) return unknownCost("output length of Range depends on values known only at run time");
      v[i] = *s;
    }
    if (v[2] == 0) return unknownCost("Range with a zero delta");
    y = Dims{std::max<int64_t>(0, static_cast<int64_t>(std::ceil((v[1] - v[0]) / v[2])))};
    writeOverride = {tensorBytes(*y, c.mainType())};
  }
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.flops = static_cast<double>(product(*y));
  return cost;
}

// One comparison per input element. The output size depends on the data: without an inferred
// shape the bytes written are the upper bound (every element non-zero).
OpCost nonZero(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  std::vector<double> writeOverride;
  if (!c.outputDims(0)) writeOverride = {static_cast<double>(x->size() * product(*x) * 8)};
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.flops = static_cast<double>(product(*x));
  return cost;
}

// Interpolation per output element over the r axes whose size changes: nearest copies; linear
// blends 2^r neighbours with 2^r - 1 lerps (subtract, multiply, add); cubic weighs 4^r taps.
double interpolationOps(std::string mode, size_t r) {
  for (auto& ch : mode) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (mode.find("linear") != std::string::npos) return 3.0 * (std::pow(2.0, double(r)) - 1);
  if (mode.find("cubic") != std::string::npos) return 2.0 * std::pow(4.0, double(r));
  return 0;  // nearest
}

std::optional<Dims> resizeOutputDims(const CostContext& c, const Dims& x) {
  if (auto y = c.outputDims(0)) return y;
  // Resize-11+: sizes (input 3) or scales (input 2); Resize-10 / Upsample-9: scales (input 1).
  const bool upsample = c.node().opType == "Upsample";
  const size_t scalesAt = (upsample || c.inputCount() == 2) ? 1 : 2;
  if (auto sizes = c.inputInts(3); sizes && sizes->size() == x.size()) return *sizes;
  std::vector<double> scales;
  if (const Tensor* s = c.inputConstant(scalesAt)) scales = s->toDouble();
  if (scales.empty()) for (float f : c.node().attr("scales") ? c.node().attr("scales")->floats : std::vector<float>{}) scales.push_back(f);
  if (scales.size() != x.size()) return std::nullopt;
  Dims y;
  for (size_t i = 0; i < x.size(); ++i) y.push_back(static_cast<int64_t>(std::floor(static_cast<double>(x[i]) * scales[i])));
  return y;
}

OpCost resize(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  auto y = resizeOutputDims(c, *x);
  if (!y || y->size() != x->size()) return unknownCost(missingShapeReason(c, false, true));
  std::vector<double> writeOverride;
  if (!c.outputDims(0)) writeOverride = {tensorBytes(*y, c.inputType(0))};
  size_t r = 0;
  for (size_t i = 0; i < x->size(); ++i) r += (*x)[i] != (*y)[i];
  OpCost cost;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.flops = interpolationOps(c.node().attrString("mode", "nearest"), r) * static_cast<double>(product(*y));
  cost.unit = cost.flops > 0 ? ComputeUnit::Vector : ComputeUnit::Memory;
  return cost;
}

// GridSample: per output element, unnormalise the coordinates (2 ops per axis) and interpolate.
OpCost gridSample(const CostContext& c) {
  auto y = c.outputDims(0);
  if (!y || y->size() < 3) return unknownCost(missingShapeReason(c, false, true));
  const size_t r = y->size() - 2;
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost)) return cost;
  std::string mode = c.node().attrString("mode", "linear");
  if (mode == "bilinear") mode = "linear";
  if (mode == "bicubic") mode = "cubic";
  cost.flops = (interpolationOps(mode, r) + 2.0 * double(r)) * static_cast<double>(product(*y));
  return cost;
}

}  // namespace

void registerDataCosts(CostRegistry& r) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Shape", "Size", "Constant"})
    r.add(op, metadataOnly);
  r.add("Dropout", dropout);
  r.add("Split", split);
  for (const char* op : {"Concat", "Transpose", "Pad", "Tile", "DepthToSpace", "SpaceToDepth", "EyeLike",
                         "OneHot", "Trilu", "ScatterElements", "Scatter", "ScatterND", "ReverseSequence", "MaxUnpool"})
    r.add(op, copy);
  r.add("Slice", slice);
  r.add("Gather", gather);
  r.add("GatherElements", gather);
  r.add("GatherND", gather);
  r.add("Expand", expand);
  r.add("ConstantOfShape", constantOfShape);
  r.add("Range", range);
  r.add("NonZero", nonZero);
  r.add("Resize", resize);
  r.add("Upsample", resize);
  r.add("GridSample", gridSample);
}

}  // namespace msa::cost
