// Pools, reductions and scans over axes: a few operations per input (reductions) or per window
// element (pools), plus a finishing step per output.
#include <algorithm>
#include <cmath>

#include "cost/cost_registry.h"
#include "cost/spatial.h"

namespace msa::cost {
namespace {

constexpr double T = kTranscendental;

DType outType(const CostContext& c) {
  DType t = c.outputType(0);
  return t != DType::Undefined ? t : c.mainType();
}

// flops = perWindowElement x outputs x window + perOutput x outputs.
OpCost windowPool(const CostContext& c, double perWindowElement, double perOutput) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  if (x->size() < 3) return unknownCost("pool input needs rank >= 3");
  auto a = windowAttrs(c.node(), x->size() - 2);
  if (!a) return unknownCost("pool attributes (kernel_shape, strides, pads, dilations) are inconsistent");
  std::vector<double> writeOverride;
  auto y = c.outputDims(0);
  if (!y) {
    y = poolOutputDims(c.node(), *x);
    if (!y) return unknownCost(missingShapeReason(c, false, true));
    writeOverride = {tensorBytes(*y, outType(c))};
    if (c.hasOutput(1)) writeOverride.push_back(tensorBytes(*y, DType::Int64));  // MaxPool indices
  }
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  const double outputs = static_cast<double>(product(*y));
  cost.flops = outputs * (perWindowElement * static_cast<double>(product(a->kernel)) + perOutput);
  return cost;
}

// A max pool compares every window element; an average pool adds them and divides once.
OpCost maxPool(const CostContext& c) { return windowPool(c, 1, 0); }
OpCost averagePool(const CostContext& c) { return windowPool(c, 1, 1); }
OpCost lpPool(const CostContext& c) { return windowPool(c, 2, c.node().attrInt("p", 2) == 2 ? 1 : 2 * T + 1); }

// Global pools read the whole spatial extent: per input element, per output element.
OpCost globalPool(const CostContext& c, double perInput, double perOutput) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  if (x->size() < 2) return unknownCost("global pool input needs rank >= 2");
  Dims y{(*x)[0], (*x)[1]};
  y.resize(x->size(), 1);
  std::vector<double> writeOverride;
  if (!c.outputDims(0)) writeOverride = {tensorBytes(y, outType(c))};
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.flops = perInput * static_cast<double>(product(*x)) + perOutput * static_cast<double>(product(y));
  return cost;
}
OpCost globalAveragePool(const CostContext& c) { return globalPool(c, 1, 1); }
OpCost globalMaxPool(const CostContext& c) { return globalPool(c, 1, 0); }
OpCost globalLpPool(const CostContext& c) { return globalPool(c, 2, c.node().attrInt("p", 2) == 2 ? 1 : 2 * T + 1); }

// The output dims of a reduction over `axes` (attribute or, from opset 13/18, input 1).
std::optional<Dims> reducedDims(const CostContext& c, const Dims& x) {
  Dims axes = c.node().attrInts("axes");
  if (!c.node().attr("axes") && c.hasInput(1)) {
    auto v = c.inputInts(1);
    if (!v) return std::nullopt;
    axes = *v;
  }
  const bool keep = c.node().attrInt("keepdims", 1) != 0;
  if (axes.empty()) {
    if (c.node().attrInt("noop_with_empty_axes", 0) != 0) return x;
    for (size_t i = 0; i < x.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<bool> reduced(x.size(), false);
  for (int64_t a : axes) {
    if (a < 0) a += static_cast<int64_t>(x.size());
    if (a < 0 || a >= static_cast<int64_t>(x.size())) return std::nullopt;
    reduced[static_cast<size_t>(a)] = true;
  }
  Dims y;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!reduced[i]) y.push_back(x[i]);
    else if (keep) y.push_back(1);
  }
  return y;
}

OpCost reduceCost(const CostContext& c, double perInput, double perOutput) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  std::vector<double> writeOverride;
  auto y = c.outputDims(0);
  if (!y) {
    y = reducedDims(c, *x);
    if (!y) return unknownCost(missingShapeReason(c, false, true));
    writeOverride = {tensorBytes(*y, outType(c))};
  }
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.flops = perInput * static_cast<double>(product(*x)) + perOutput * static_cast<double>(product(*y));
  return cost;
}

OpCost reduceSum(const CostContext& c) { return reduceCost(c, 1, 0); }          // also Max, Min, Prod
OpCost reduceMean(const CostContext& c) { return reduceCost(c, 1, 1); }         // sum, divide
OpCost reduceSquareOrAbs(const CostContext& c) { return reduceCost(c, 2, 0); }  // SumSquare, L1
OpCost reduceL2(const CostContext& c) { return reduceCost(c, 2, 1); }           // square, sum; sqrt
OpCost reduceLogSum(const CostContext& c) { return reduceCost(c, 1, T); }
// Stable form: max, subtract, exp, sum; then log and add the max back.
OpCost reduceLogSumExp(const CostContext& c) { return reduceCost(c, T + 3, T + 1); }

// One comparison (ArgMax) or addition (CumSum) per input element.
OpCost perInputElement(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x) return unknownCost(missingShapeReason(c, true, false));
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost)) return cost;
  cost.flops = static_cast<double>(product(*x));
  return cost;
}

// A heap selection: about log2(k) comparisons per input element.
OpCost topK(const CostContext& c) {
  auto x = c.inputDims(0);
  if (!x || x->empty()) return unknownCost(missingShapeReason(c, true, false));
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost)) return cost;
  int64_t axis = c.node().attrInt("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(x->size());
  int64_t k = c.node().attrInt("k", 0);
  if (auto v = c.inputInts(1); v && v->size() == 1) k = (*v)[0];
  if (auto y = c.outputDims(0); k <= 0 && y && axis >= 0 && axis < static_cast<int64_t>(y->size()))
    k = (*y)[static_cast<size_t>(axis)];
  cost.flops = static_cast<double>(product(*x)) * std::max(1.0, std::ceil(std::log2(std::max<int64_t>(k, 2))));
  return cost;
}

}  // namespace

void registerPoolReduceCosts(CostRegistry& r) {
  r.add("MaxPool", maxPool);
  r.add("AveragePool", averagePool);
  r.add("LpPool", lpPool);
  r.add("GlobalAveragePool", globalAveragePool);
  r.add("GlobalMaxPool", globalMaxPool);
  r.add("GlobalLpPool", globalLpPool);
  for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"}) r.add(op, reduceSum);
  r.add("ReduceMean", reduceMean);
  r.add("ReduceSumSquare", reduceSquareOrAbs);
  r.add("ReduceL1", reduceSquareOrAbs);
  r.add("ReduceL2", reduceL2);
  r.add("ReduceLogSum", reduceLogSum);
  r.add("ReduceLogSumExp", reduceLogSumExp);
  r.add("ArgMax", perInputElement);
  r.add("ArgMin", perInputElement);
  r.add("CumSum", perInputElement);
  r.add("TopK", topK);
}

}  // namespace msa::cost
