#include "rules/op_sets.h"

#include <array>
#include <algorithm>

namespace msa {
namespace {

template <size_t N>
bool oneOf(const Node& n, const std::array<std::string_view, N>& ops) {
  return n.isDefaultDomain() && std::find(ops.begin(), ops.end(), n.opType) != ops.end();
}

constexpr std::array<std::string_view, 48> kElementwise{
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Sum", "Mean",
    "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu", "Selu", "Celu",
    "Softplus", "Softsign", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Erf", "Clip",
    "Ceil", "Floor", "Round", "Sign", "Sin", "Cos", "Not", "Cast", "Mish", "Gelu",
    "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Where"};
constexpr std::array<std::string_view, 10> kActivation{
    "Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu", "Gelu", "Mish"};
constexpr std::array<std::string_view, 4> kReshape{"Reshape", "Flatten", "Squeeze", "Unsqueeze"};
constexpr std::array<std::string_view, 5> kCompute{"Conv", "ConvTranspose", "MatMul", "Gemm", "Einsum"};

}  // namespace

bool isElementwise(const Node& n) { return oneOf(n, kElementwise); }
bool isActivation(const Node& n) { return oneOf(n, kActivation); }
bool isReshapeLike(const Node& n) { return oneOf(n, kReshape); }
bool isCompute(const Node& n) { return oneOf(n, kCompute); }

}  // namespace msa
