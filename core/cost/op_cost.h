#pragma once
// Per-node work: FLOPs, multiply-accumulates and bytes moved, computed from the IR, its inferred
// shapes and the node attributes. The formulas per op family are in docs/cost-model.md; each
// family lives in its own cost_<family>.cpp and registers its ops by type (see cost_registry.h).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/dtype.h"
#include "model/graph.h"
#include "util/progress.h"

namespace msa {

class GraphIndex;

struct OpCost {
  // Which engine executes the op on an accelerator with separate matrix and vector units.
  enum class Unit {
    Cube,    // matrix engine: Conv, MatMul, Gemm, Einsum with a contraction, RNN cells
    Vector,  // elementwise, normalisation, reduction, pooling, resampling
    Memory,  // pure data movement: Transpose, Concat, Slice, Gather, Pad…
    None,    // nothing runs: metadata-only ops (Reshape, Shape) and constants
  };

  double flops = 0;         // arithmetic operations; a multiply-add counts 2
  double macs = 0;          // multiply-accumulates of the matrix work (Cube ops only)
  double bytesRead = 0;     // every distinct input once, weights included
  double bytesWritten = 0;  // every output once
  double paramBytes = 0;    // the part of bytesRead that is constant (initializers, Constant nodes)
  // The part of read + written held as float32, which halves when the device computes in
  // float16. Left 0 on an op whose computeType is Float, all of its bytes are taken as float32.
  double float32Bytes = 0;
  bool known = false;       // false: the figures are incomplete, `reason` says why
  bool movesData = true;    // false for ops that only rewrite metadata (Reshape, Squeeze…)
  // Every input is a constant, a static shape (Shape/Size of a fully known value) or the output
  // of another such node: a compiler computes it once at build time (ATC's ConstantFoldingPass,
  // ONNX Runtime's constant folding). The figures still say what running it would cost.
  bool foldable = false;
  DType computeType = DType::Undefined;
  Unit unit = Unit::None;
  std::string reason;  // why the cost is unknown (empty when known)

  double bytes() const { return bytesRead + bytesWritten; }
  // FLOPs per byte moved; 0 when nothing moves.
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0.0; }
};

using ComputeUnit = OpCost::Unit;
std::string_view unitName(ComputeUnit u);  // "cube", "vector", "memory", "none"

// A node whose cost could not be computed, with where it sits ("If_0/then_branch/Conv_3").
struct UnknownCost {
  std::string path;  // node name, prefixed by its parents and subgraph names
  std::string opType;
  std::string domain;
  std::string reason;
};

// Costs of one graph. Subgraph costs (If/Loop/Scan bodies) are computed too and attributed to
// their parent node, so totals over `nodes` never count a subgraph twice.
struct GraphCost {
  std::vector<OpCost> nodes;  // aligned with graph.nodes
  // Per node, the costs of its subgraphs in attribute order (empty for most nodes).
  std::vector<std::vector<GraphCost>> subgraphs;
  // Per node with subgraphs: which of them its cost counts (If: the branch taken or the dearer
  // one; Loop/Scan: the body) and how many times (trip count, scan length).
  struct SubgraphUse {
    int index = -1;
    double times = 0;
  };
  std::vector<SubgraphUse> subgraphUse;

  // Totals over `nodes` (subgraph work included through the parents).
  double flops = 0, macs = 0, bytesRead = 0, bytesWritten = 0, paramBytes = 0, float32Bytes = 0;
  int64_t parameters = 0;  // elements of initializers and float Constant values, all subgraphs
  size_t knownNodes = 0, unknownNodes = 0;  // over `nodes`
  size_t foldableNodes = 0;                  // over `nodes`
  // Every node with an unknown cost, in subgraphs too; the parent of an unknown subgraph node
  // is listed only when its own aggregation is unknown (a Loop without a constant trip count).
  std::vector<UnknownCost> unknown;
  std::map<std::string, int> unknownByOp;
  // Nodes (paths as in `unknown`) whose figures reached kCostCeiling and were held there: shapes
  // so large that the product of their dims overflows. A total that reached it is held there too.
  std::vector<std::string> saturated;
  bool totalsSaturated = false;

  double bytes() const { return bytesRead + bytesWritten; }
};

// No figure exceeds this (2^63): absurd shapes saturate here instead of printing 1e46 FLOPs.
inline constexpr double kCostCeiling = 9223372036854775808.0;

// Costs every node of the graph (and its subgraphs). Never fails: what cannot be costed is
// marked unknown with a reason. Checks progress.cancelled() per node; a cancelled run returns
// the nodes done so far with the rest marked unknown ("cancelled").
GraphCost computeCosts(const Graph& graph, const Progress& progress = Progress::none());
// The same over the graph of an index the caller holds (not built again).
GraphCost computeCosts(const GraphIndex& index, const Progress& progress = Progress::none());

// The cost of one node of `graph` (top level), as computeCosts would give it.
OpCost computeNodeCost(const Graph& graph, size_t nodeIndex);

// Op types with a cost formula ("Conv", "com.microsoft:Gelu"…), sorted.
std::vector<std::string> costedOpTypes();
bool hasCostFormula(std::string_view opType, std::string_view domain = {});

}  // namespace msa
