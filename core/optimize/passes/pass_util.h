#pragma once
// Helpers shared by the pass implementations.
#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "model/graph_index.h"
#include "optimize/pass.h"

namespace msa {

inline bool isOneOf(const Node& n, const std::vector<std::string_view>& ops) {
  return n.isDefaultDomain() && std::find(ops.begin(), ops.end(), n.opType) != ops.end();
}

// The value feeds exactly one node input and is not a graph output (so it may disappear).
inline bool singleUse(const GraphIndex& idx, std::string_view value) {
  return idx.consumerCount(value) == 1 && !idx.isGraphOutput(value);
}

// Transpose's permutation, the default (reversed axes) when the attribute is absent and the
// rank is known; empty when unknown.
inline std::vector<int64_t> transposePerm(const Node& t, const GraphIndex& idx) {
  auto perm = t.attrInts("perm");
  if (!perm.empty()) return perm;
  const Shape* s = idx.shape(t.input(0));
  if (!s) return {};
  for (int64_t i = static_cast<int64_t>(s->rank()) - 1; i >= 0; --i) perm.push_back(i);
  return perm;
}

// Factories of the built-in passes (one per file in optimize/passes).
std::unique_ptr<Pass> makeFoldBnIntoConv();
std::unique_ptr<Pass> makeFoldBnIntoGemm();
std::unique_ptr<Pass> makeEliminateIdentity();
std::unique_ptr<Pass> makeCancelTransposes();
std::unique_ptr<Pass> makeEliminateDeadCode();

}  // namespace msa
