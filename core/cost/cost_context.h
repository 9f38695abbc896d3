#pragma once
// What a cost formula sees of one node: its inputs and outputs with shapes, element types and
// constant values, looked up through the enclosing graphs for subgraph nodes. Internal to cost/.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cost/op_cost.h"
#include "model/graph_index.h"

namespace msa::cost {

// Type and constant lookup through a chain of graphs: a subgraph sees its own values first,
// then those of the graphs around it.
class TypeScope {
 public:
  TypeScope(const GraphIndex& index, const TypeScope* outer) : m_index(&index), m_outer(outer) {}
  const TypeInfo* type(std::string_view value) const;
  const Tensor* constant(std::string_view value) const;
  const GraphIndex& index() const { return *m_index; }

 private:
  const GraphIndex* m_index;
  const TypeScope* m_outer;
};

using Dims = std::vector<int64_t>;

// Transcendental functions (exp, log, tanh, erf, pow, trig) count this many operations per
// evaluation: they take several vector instructions or a multi-cycle special-function unit.
inline constexpr double kTranscendental = 4.0;

class CostContext {
 public:
  CostContext(const Node& node, const TypeScope& scope) : m_node(&node), m_scope(&scope) {}

  const Node& node() const { return *m_node; }
  const TypeScope& scope() const { return *m_scope; }

  bool hasInput(size_t i) const { return i < m_node->inputs.size() && !m_node->inputs[i].empty(); }
  bool hasOutput(size_t i) const { return i < m_node->outputs.size() && !m_node->outputs[i].empty(); }
  size_t inputCount() const { return m_node->inputs.size(); }
  size_t outputCount() const { return m_node->outputs.size(); }

  // Fully known dims, or nullopt when the value is absent or any dim is unknown.
  std::optional<Dims> inputDims(size_t i) const;
  std::optional<Dims> outputDims(size_t i) const;
  std::optional<Dims> valueDims(std::string_view value) const;
  DType inputType(size_t i) const;
  DType outputType(size_t i) const;
  const Tensor* inputConstant(size_t i) const;
  // Integer values of a constant input (shape, axes, pads…); nullopt when not constant.
  std::optional<std::vector<int64_t>> inputInts(size_t i) const;
  // The first floating-point input type, else the first input's, else the first output's.
  DType mainType() const;

 private:
  const Node* m_node;
  const TypeScope* m_scope;
};

// ---- helpers shared by the families ----

int64_t product(const Dims& d, size_t from = 0, size_t to = SIZE_MAX);
int64_t dtypeBytes(DType t);

// A cost marked unknown with a reason.
OpCost unknownCost(std::string reason);
// "shape of 'x' unknown" for the first input/output whose dims are not all known.
std::string missingShapeReason(const CostContext& c, bool inputs, bool outputs);

// Fills bytesRead (distinct non-empty inputs), bytesWritten (outputs), paramBytes, float32Bytes
// and computeType, sets known. Returns false (cost marked unknown with a reason) when a shape
// is missing. `readOverride[i] >= 0` replaces the bytes read from input i (Slice, Gather);
// `writeOverride[i] >= 0` gives the bytes of output i when the formula computed its shape itself.
bool addIoBytes(const CostContext& c, OpCost& cost, const std::vector<double>& readOverride = {},
                const std::vector<double>& writeOverride = {});
// Bytes of a tensor of these dims holding the given type (0 for an undefined type).
double tensorBytes(const Dims& d, DType t);
// The output dims, from inference or, when missing, from broadcasting every input (elementwise).
std::optional<Dims> elementwiseOutputDims(const CostContext& c, size_t output = 0);

}  // namespace msa::cost
