#pragma once
// Where each element of a value comes from when only data-movement operators lie between it and
// a source value: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice, Split, Expand, Identity
// (and Mul/Div by a scalar constant, which move nothing). The map is computed by pushing the
// source's own flat indices through the operators, so two spellings of one layout change (a head
// split written as Reshape→Transpose or as Slice→Reshape→Transpose, a seq-first export) compare
// equal by what they do, not by how they are written. Static shapes only.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph_index.h"
#include "model/shape_values.h"

namespace msa {

struct IndexMap {
  std::vector<int64_t> dims;
  std::vector<int32_t> from;  // per element, row-major: its flat index in the source
};

// Small operands known before the run: a Reshape's shape, a Slice's starts, a scale. Constants;
// with `evaluate`, also values computed from constants and static shapes (Shape→Gather→Concat,
// Cast(Constant), Slice of a mask buffer…: each value's cone evaluated by model/shape_values.h on
// first use, values up to `maxElements`), as a freshly exported graph holds them.
class KnownOperands {
 public:
  explicit KnownOperands(const GraphIndex& idx, bool evaluate = false, size_t maxElements = 65536);
  ~KnownOperands();
  const GraphIndex& index() const { return m_idx; }
  bool known(std::string_view v) const;
  std::optional<std::vector<int64_t>> ints(std::string_view v) const;
  std::optional<std::vector<double>> values(std::string_view v) const;
  std::optional<double> scalar(std::string_view v) const;  // one element
  std::optional<std::vector<int64_t>> dims(std::string_view v) const;

 private:
  struct Evaluated;
  const KnownValue* evaluated(std::string_view v) const;
  const GraphIndex& m_idx;
  bool m_evaluate;
  size_t m_max;
  std::unique_ptr<Evaluated> m_values;  // filled lazily (const methods): cached per value
};

// A data-movement operator of the default domain whose data input is input 0.
bool isDataMovement(const Node& n);
// Mul/Div by a one-element known operand that does not broadcast the data up: scales, moves
// nothing. Its factor (1/c for a Div) and the data operand, when `n` is one.
struct ScalarFactor {
  double factor = 1;
  std::string data;
};
std::optional<ScalarFactor> scalarFactor(const KnownOperands& known, const Node& n);

// The identity map of a tensor of `dims` (nothing above `maxElements` elements or 2^31).
std::optional<IndexMap> iotaMap(std::span<const int64_t> dims, size_t maxElements);

// The map of output `out` of movement node `n` given the map of its data input; nothing when an
// operand that defines the movement is not known or a dimension does not match.
std::optional<IndexMap> applyMovement(const Node& n, size_t out, IndexMap in, const KnownOperands& known);

// `in` broadcast to `dims` (numpy rules, aligned on the right).
std::optional<IndexMap> broadcastMap(const IndexMap& in, std::span<const int64_t> dims);

// The movement operators (and scalar Mul/Div when `scales`) from the value they start at to
// `value`, walking producers back (at most `maxOps`): `source` is the first value not produced
// by one of them; `nodes` the chain in data-flow order.
struct MovementChain {
  std::string source;
  std::string value;          // where it ends
  std::vector<size_t> nodes;  // data-flow order
};
MovementChain movementChainTo(const KnownOperands& known, std::string_view value, bool scales, size_t maxOps = 16);

// The map of the chain's last value over its source's elements.
std::optional<IndexMap> mapAlong(const KnownOperands& known, const MovementChain& chain, size_t maxElements);

}  // namespace msa
