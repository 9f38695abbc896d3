// Normalisations and softmax: a few operations per element plus a few per normalised row.
#include "cost/cost_registry.h"

namespace msa::cost {
namespace {

constexpr double T = kTranscendental;

// Cost = perElement x elements + perRow x rows, where rows = elements / row length.
OpCost rowwise(const CostContext& c, double perElement, double perRow, int64_t rowLength) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost)) return cost;
  const double n = static_cast<double>(product(*x));
  const double rows = rowLength > 0 ? n / static_cast<double>(rowLength) : 0.0;
  cost.flops = perElement * n + perRow * rows;
  return cost;
}

int64_t normAxis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

// Inference: y = x * s + t with s = gamma / sqrt(var + eps), t = beta - mean * s computed once
// per channel (add, sqrt, divide, multiply, subtract). Training mode adds the statistics.
OpCost batchNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  const int64_t channels = x->size() > 1 ? (*x)[1] : 1;
  const bool training = c.node().attrInt("training_mode", 0) != 0;
  OpCost cost = rowwise(c, training ? 7 : 2, 0, 1);
  if (cost.known) cost.flops += 5.0 * static_cast<double>(channels);
  return cost;
}

// Per element: sum, subtract mean, square, sum, multiply by 1/std, scale, shift (when B is
// given); per row: two divisions, add epsilon, sqrt, reciprocal.
OpCost layerNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  int64_t axis = normAxis(c.node().attrInt("axis", -1), x->size());
  if (axis < 0 || axis > static_cast<int64_t>(x->size())) return unknownCost("LayerNormalization axis out of range");
  return rowwise(c, c.hasInput(2) ? 7 : 6, 5, product(*x, static_cast<size_t>(axis)));
}

OpCost instanceNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  return rowwise(c, 7, 5, product(*x, 2));
}

OpCost groupNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  const int64_t groups = c.node().attrInt("num_groups", 1);
  if (groups <= 0 || x->size() < 2) return unknownCost("GroupNormalization needs num_groups > 0");
  return rowwise(c, 7, 5, product(*x, 1) / groups);
}

// Square, sum, multiply by 1/rms, scale; per row: divide, add epsilon, sqrt, reciprocal.
OpCost rmsNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  int64_t axis = normAxis(c.node().attrInt("axis", -1), x->size());
  if (axis < 0 || axis > static_cast<int64_t>(x->size())) return unknownCost("normalisation axis out of range");
  return rowwise(c, 4, 4, product(*x, static_cast<size_t>(axis)));
}

// ONNX Runtime's residual-add + LayerNorm (+ bias).
OpCost skipLayerNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x || x->empty()) return unknownCost(missingShapeReason(c, true, false));
  return rowwise(c, 8 + (c.hasInput(4) ? 1 : 0), 5, x->back());
}

OpCost meanVarianceNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  Dims axes = c.node().attrInts("axes");
  if (axes.empty()) axes = {0, 2, 3};
  int64_t len = 1;
  for (int64_t a : axes) {
    a = normAxis(a, x->size());
    if (a < 0 || a >= static_cast<int64_t>(x->size())) return unknownCost("MeanVarianceNormalization axis out of range");
    len *= (*x)[static_cast<size_t>(a)];
  }
  return rowwise(c, 5, 5, len);
}

OpCost lpNorm(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x || x->empty()) return unknownCost(missingShapeReason(c, true, false));
  int64_t axis = normAxis(c.node().attrInt("axis", -1), x->size());
  if (axis < 0 || axis >= static_cast<int64_t>(x->size())) return unknownCost("LpNormalization axis out of range");
  return rowwise(c, 3, 1, (*x)[static_cast<size_t>(axis)]);
}

// Per element: running max, subtract, exp, sum, divide. LogSoftmax takes a log per row and
// subtracts it instead of dividing.
OpCost softmaxLike(const CostContext& c, double perElement, double perRow) {
  auto x = c.inputDims(0);
  if (!x || x->empty()) return unknownCost(missingShapeReason(c, true, false));
  int64_t axis = normAxis(c.node().attrInt("axis", -1), x->size());
  if (axis < 0 || axis >= static_cast<int64_t>(x->size())) return unknownCost("softmax axis out of range");
  return rowwise(c, perElement, perRow, (*x)[static_cast<size_t>(axis)]);
}
OpCost softmax(const CostContext& c) { return softmaxLike(c, T + 4, 0); }
OpCost logSoftmax(const CostContext& c) { return softmaxLike(c, T + 4, T); }
OpCost hardmax(const CostContext& c) { return softmaxLike(c, 2, 0); }

// Square, window sum, scale and bias, pow (exp/log), divide.
OpCost lrn(const CostContext& c) {
  const double size = static_cast<double>(c.node().attrInt("size", 1));
  return rowwise(c, size + 2 * T + 5, 0, 1);
}

}  // namespace

void registerNormCosts(CostRegistry& r) {
  r.add("BatchNormalization", batchNorm);
  r.add("LayerNormalization", layerNorm);
  r.add("LayerNormalization", layerNorm, "com.microsoft");
  r.add("InstanceNormalization", instanceNorm);
  r.add("GroupNormalization", groupNorm);
  r.add("RMSNormalization", rmsNorm);
  r.add("SimplifiedLayerNormalization", rmsNorm);
  r.add("SimplifiedLayerNormalization", rmsNorm, "com.microsoft");
  r.add("SkipLayerNormalization", skipLayerNorm, "com.microsoft");
  r.add("MeanVarianceNormalization", meanVarianceNorm);
  r.add("LpNormalization", lpNorm);
  r.add("Softmax", softmax);
  r.add("LogSoftmax", logSoftmax);
  r.add("Hardmax", hardmax);
  r.add("LRN", lrn);
}

}  // namespace msa::cost
