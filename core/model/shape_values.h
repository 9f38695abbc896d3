#pragma once
// The small integer tensors exporters compute inside a graph from shapes and constants
// (Shape -> Gather -> Div -> Mul -> Slice, Where/Equal on shape vectors…). ONNX 1.12's data
// propagation follows only some of these ops; evaluating them here lets shape inference resolve
// the Slice, Expand and Reshape outputs they feed.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/graph.h"

namespace onnx {
class GraphProto;
}

namespace msa {

// NumPy's broadcasting of two fully known shapes (ONNX's rule for elementwise operators);
// nullopt when they clash. Shape values and operator costs both use it.
std::optional<std::vector<int64_t>> broadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

struct KnownValue {
  DType dtype = DType::Int64;
  std::vector<int64_t> dims;
  std::vector<double> values;  // row-major; integers are exact below 2^53
};

// Values of the top-level graph that can be computed without running the model: constants,
// Shape/Size of values with fully known shapes, and integer/float arithmetic, gathering,
// concatenation and reshaping over them. Tensors above `maxElements` are not evaluated.
std::unordered_map<std::string, KnownValue> evaluateShapeValues(const Graph& g, size_t maxElements = 1024);

class Evaluator;

// The same evaluation node by node, for a single inference pass: shapes come from `shapes` as
// they become known, and a node's value is available to the nodes after it at once.
class ShapeEvaluator {
 public:
  using ShapeOf = std::function<const Shape*(std::string_view)>;
  ShapeEvaluator(const Graph& g, size_t maxElements, ShapeOf shapes);
  ~ShapeEvaluator();
  // The value of the node's first output, when it can be computed (null otherwise).
  const KnownValue* evaluate(const Node& n);
  const KnownValue* value(std::string_view name) const;
  // Whether value(name) has one to give, without converting a weight to find out.
  bool holds(std::string_view name) const;

 private:
  std::unique_ptr<Evaluator> m_impl;
};

// A known value as a tensor (the constant it folds into), for the types it can hold.
std::optional<Tensor> knownValueTensor(const std::string& name, const KnownValue& v);

// In `proto`, the serialized form of `g` that shape inference reads (same node order), replaces
// every single-output node whose value can be evaluated (in subgraphs too, with the values of
// the enclosing graphs) by a Constant holding it. Returns how many nodes it replaced; the IR
// itself is not touched. `replaced` (optional) receives the top-level values it replaced, and
// an empty name for anything it changed inside subgraphs.
size_t foldKnownValues(onnx::GraphProto& proto, const Graph& g, size_t maxElements = 1024,
                       std::vector<std::string>* replaced = nullptr);

}  // namespace msa
