#pragma once
// Helpers shared by the pass implementations.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "model/graph_index.h"
#include "optimize/pass.h"

namespace msa {

// The passes' fixed-point loop: `rewriteFirst` looks at the graph through a fresh index, applies
// at most one rewrite and returns it (nullopt: nothing left to do); it runs again, on a new
// index, until it finds nothing. Dead code is removed once, at the end, when anything changed.
std::vector<Rewrite> rewriteUntilStable(Graph& g, const std::function<std::optional<Rewrite>(const GraphIndex&)>& rewriteFirst);

// A pass that bypasses every node `isNop` says returns its first input unchanged (one output,
// graph output names kept): nops.cpp's Cast/Pad/Expand, reshapes.cpp's Reshape-likes.
using NopPredicate = std::function<bool(const Node&, const GraphIndex&, int64_t opset)>;
std::unique_ptr<Pass> makeNopElimination(PassInfo info, NopPredicate isNop);

inline bool isOneOf(const Node& n, const std::vector<std::string_view>& ops) {
  return n.isDefaultDomain() && std::find(ops.begin(), ops.end(), n.opType) != ops.end();
}

// The value feeds exactly one node input and is not a graph output (so it may disappear).
inline bool singleUse(const GraphIndex& idx, std::string_view value) {
  return idx.consumerCount(value) == 1 && !idx.isGraphOutput(value);
}

// Values read by the nodes of the graph's subgraphs (If/Loop/Scan bodies reading outer values).
std::unordered_set<std::string> subgraphReads(const Graph& g);

// Only one node input reads `value` (no other node, no subgraph, not a graph output): a rewrite
// that replaces the constant by a modified copy frees it. A shared constant (tied weights: an
// embedding also read by the output projection, one weight read by two Convs) would stay, and the
// copy would duplicate it — a safe fix never grows the model (docs/optimizer.md).
inline bool exclusiveUse(const GraphIndex& idx, const std::unordered_set<std::string>& subgraphReads, std::string_view value) {
  return singleUse(idx, value) && !subgraphReads.count(std::string(value));
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

// Is any of the nodes (indices) an anchor the caller asked for (or were none asked for)?
bool anyAnchored(const PassContext& ctx, const Graph& g, std::span<const size_t> members);
std::vector<std::string> nodeNames(const Graph& g, std::span<const size_t> members);

// Inserts `n` (a fresh id and, when empty, a unique name) at position `pos` of the node list.
Node& insertNode(Graph& g, size_t pos, Node n);

// Replaces the nodes `remove` by `replacement`, placed where the last of them stood in the node
// list, so that the list stays in execution order (the group's inputs come before its last
// member, its consumers after). Returns the new node's name.
std::string replaceNodes(Graph& g, std::span<const NodeId> remove, Node replacement);

// A unique name for the node standing in for `members`: their common scope ("/blocks.0/norm1/")
// followed by the new op type, as exporters name nodes.
std::string fusedNodeName(const Graph& g, std::span<const std::string> memberNames, std::string_view opType);

// Removes node `id` whose output 0 becomes `source` (for nodes found to pass `source` through).
// Keeps graph output names; false, and nothing changed, when that is not possible.
bool forwardOutput(Graph& g, NodeId id, const std::string& source);

// Drops the value_info entry of `value` (its type changed or it is no longer what it was).
void dropValueInfo(Graph& g, std::string_view value);

// The tensor with its axes permuted (out.dims[k] = in.dims[perm[k]]), for any fixed-size dtype.
Tensor transposeTensor(const Tensor& t, std::span<const int64_t> perm);
Tensor int64Tensor(std::vector<int64_t> dims, const std::vector<int64_t>& values);

// Factories of the built-in passes (one per file, or per close family, in optimize/passes).
std::unique_ptr<Pass> makeFoldBnIntoConv();
std::unique_ptr<Pass> makeFoldBnIntoGemm();
std::unique_ptr<Pass> makeEliminateIdentity();
std::unique_ptr<Pass> makeCancelTransposes();
std::unique_ptr<Pass> makeEliminateDeadCode();
std::unique_ptr<Pass> makeFuseMatMulAddIntoGemm();
std::unique_ptr<Pass> makeFoldAddIntoBias();
std::unique_ptr<Pass> makePushTransposeThroughElementwise();
std::unique_ptr<Pass> makeMergeReshapes();
std::unique_ptr<Pass> makeEliminateNopReshape();
std::unique_ptr<Pass> makeEliminateNopCast();
std::unique_ptr<Pass> makeEliminateNopPad();
std::unique_ptr<Pass> makeEliminateNopExpand();
std::unique_ptr<Pass> makeEliminateCastRoundtrip();
std::unique_ptr<Pass> makeFoldConstants();
std::unique_ptr<Pass> makeFuseLayerNorm();
std::unique_ptr<Pass> makeFuseGelu();
std::unique_ptr<Pass> makeFuseSoftmax();
std::unique_ptr<Pass> makeEliminateSliceConcat();
// Runtime-specific (aggressive): ONNX Runtime contrib-op fusions and its offline graph.
std::unique_ptr<Pass> makeFuseConvActivation();
std::unique_ptr<Pass> makeFuseGemmActivation();
std::unique_ptr<Pass> makeFuseMatMulBiasActivation();
std::unique_ptr<Pass> makeFuseMatMulScale();
std::unique_ptr<Pass> makeFuseAttention();
std::unique_ptr<Pass> makeFuseSkipLayerNorm();
std::unique_ptr<Pass> makeFuseSkipRmsNorm();
std::unique_ptr<Pass> makeFuseRotary();
std::unique_ptr<Pass> makeOrtOfflineOptimize();

}  // namespace msa
