// Elementwise ops, unary, binary (with broadcasting) and variadic: operations per output
// element, from a table. Transcendental functions weigh kTranscendental (cost_context.h).
#include <algorithm>
#include <map>

#include "cost/cost_registry.h"

namespace msa::cost {
namespace {

constexpr double T = kTranscendental;

// Operations per output element. Composite activations are spelled out as their primitives.
const std::map<std::string, double, std::less<>>& weights() {
  static const std::map<std::string, double, std::less<>> w = {
      // one instruction each: arithmetic, comparison, logic, rounding, select, conversion
      {"Add", 1}, {"Sub", 1}, {"Mul", 1}, {"Div", 1}, {"Neg", 1}, {"Abs", 1}, {"Relu", 1},
      {"Sign", 1}, {"Floor", 1}, {"Ceil", 1}, {"Round", 1}, {"Reciprocal", 1}, {"Sqrt", 1},
      {"Equal", 1}, {"Greater", 1}, {"Less", 1}, {"GreaterOrEqual", 1}, {"LessOrEqual", 1},
      {"And", 1}, {"Or", 1}, {"Xor", 1}, {"Not", 1}, {"BitShift", 1}, {"BitwiseAnd", 1},
      {"BitwiseOr", 1}, {"BitwiseXor", 1}, {"BitwiseNot", 1}, {"IsNaN", 1}, {"IsInf", 1},
      {"Where", 1}, {"Cast", 1}, {"CastLike", 1},
      {"Mod", 3},                                  // divide, truncate, multiply-subtract
      {"Clip", 2},                                 // max then min
      {"LeakyRelu", 2}, {"PRelu", 2},              // multiply, select
      {"ThresholdedRelu", 2},                      // compare, select
      {"Shrink", 3}, {"Softsign", 3},              // abs/compare, add, divide
      {"HardSigmoid", 4},                          // multiply, add, clip (2)
      {"HardSwish", 5},                            // hard sigmoid, multiply
      {"Sigmoid", T + 2},                          // exp, add, divide
      {"Tanh", T}, {"Erf", T}, {"Exp", T}, {"Log", T},
      {"Sin", T}, {"Cos", T}, {"Tan", T}, {"Asin", T}, {"Acos", T}, {"Atan", T},
      {"Sinh", T}, {"Cosh", T}, {"Asinh", T}, {"Acosh", T}, {"Atanh", T},
      {"Softplus", 2 * T + 1},                     // exp, add, log
      {"Elu", T + 3}, {"Selu", T + 4}, {"Celu", T + 4},
      {"Mish", 3 * T + 2},                         // softplus, tanh, multiply
      {"QuantizeLinear", 5}, {"DequantizeLinear", 2},
      {"DynamicQuantizeLinear", 7},                // min/max pass (2), then quantize (5)
      // random draws: a generator step (multiply-add); normal adds Box-Muller (log, sqrt, cos)
      {"RandomUniform", 2}, {"RandomUniformLike", 2}, {"Bernoulli", 3},
      {"RandomNormal", 2 * T + 4}, {"RandomNormalLike", 2 * T + 4},
  };
  return w;
}

OpCost withWeight(const CostContext& c, double perElement) {
  auto y = elementwiseOutputDims(c);
  if (!y) return unknownCost(missingShapeReason(c, true, true));
  std::vector<double> writeOverride;
  if (!c.outputDims(0)) {
    DType t = c.outputType(0) != DType::Undefined ? c.outputType(0) : c.mainType();
    writeOverride = {tensorBytes(*y, t)};
  }
  OpCost cost;
  cost.unit = ComputeUnit::Vector;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.flops = perElement * static_cast<double>(product(*y));
  if (cost.flops == 0) cost.unit = ComputeUnit::Memory;
  return cost;
}

OpCost elementwise(const CostContext& c) {
  auto it = weights().find(c.node().opType);
  return withWeight(c, it == weights().end() ? 1.0 : it->second);
}

// Sum/Max/Min/Mean over n inputs: n - 1 operations per element, Mean one more to divide.
OpCost variadic(const CostContext& c) {
  double n = 0;
  for (size_t i = 0; i < c.inputCount(); ++i) n += c.hasInput(i);
  double w = std::max(0.0, n - 1) + (c.node().opType == "Mean" ? 1 : 0);
  return withWeight(c, w);
}

// x^2 and x^0.5 are one instruction; other exponents are exp(y log x).
OpCost pow(const CostContext& c) {
  if (const Tensor* e = c.inputConstant(1); e && e->numElements() == 1)
    if (auto v = e->scalar(); v && (*v == 2.0 || *v == 0.5 || *v == 1.0)) return withWeight(c, 1);
  return withWeight(c, 2 * T + 1);
}

// Exact: 0.5 x (1 + erf(x / sqrt 2)); "tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
OpCost gelu(const CostContext& c) {
  return withWeight(c, c.node().attrString("approximate", "none") == "tanh" ? T + 7 : T + 4);
}
OpCost fastGelu(const CostContext& c) { return withWeight(c, T + 7 + (c.hasInput(1) ? 1 : 0)); }
OpCost biasGelu(const CostContext& c) { return withWeight(c, T + 5); }
OpCost quickGelu(const CostContext& c) { return withWeight(c, T + 4); }  // x * sigmoid(1.702 x)

}  // namespace

void registerElementwiseCosts(CostRegistry& r) {
  for (const auto& [op, w] : weights()) r.add(op, elementwise);
  for (const char* op : {"Sum", "Max", "Min", "Mean"}) r.add(op, variadic);
  r.add("Pow", pow);
  r.add("Gelu", gelu);
  r.add("Gelu", gelu, "com.microsoft");
  r.add("FastGelu", fastGelu, "com.microsoft");
  r.add("BiasGelu", biasGelu, "com.microsoft");
  r.add("QuickGelu", quickGelu, "com.microsoft");
}

}  // namespace msa::cost
