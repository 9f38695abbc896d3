#include "cost/op_cost.h"

#include <algorithm>
#include <optional>
#include <set>

#include "cost/cost_registry.h"
#include "model/graph_index.h"

namespace msa {

using cost::CostContext;
using cost::CostRegistry;
using cost::TypeScope;

std::string_view unitName(ComputeUnit u) {
  switch (u) {
    case ComputeUnit::Cube: return "cube";
    case ComputeUnit::Vector: return "vector";
    case ComputeUnit::Memory: return "memory";
    case ComputeUnit::None: return "none";
  }
  return "none";
}

namespace {

// Trip counts at or above this are the "run until cond" sentinel of a while loop, not a count.
constexpr int64_t kWhileSentinel = int64_t(1) << 31;

void accumulate(OpCost& into, const OpCost& c, double times = 1) {
  into.flops += times * c.flops;
  into.macs += times * c.macs;
  into.bytesRead += times * c.bytesRead;
  into.bytesWritten += times * c.bytesWritten;
  into.paramBytes += c.paramBytes;  // weights are read once however often the body runs
  into.float32Bytes += times * c.float32Bytes;
}

// The parent's cost = `times` x the totals of one of its subgraphs.
OpCost fromSubgraph(const GraphCost& body, double times, const CostContext& ctx) {
  OpCost c;
  for (const OpCost& n : body.nodes) accumulate(c, n, times);
  c.known = body.unknownNodes == 0;
  c.computeType = ctx.mainType();
  c.unit = c.macs > 0 ? ComputeUnit::Cube : c.flops > 0 ? ComputeUnit::Vector
                                         : c.bytes() > 0 ? ComputeUnit::Memory : ComputeUnit::None;
  if (!c.known) c.reason = std::to_string(body.unknownNodes) + " node(s) of its subgraph have unknown cost";
  return c;
}

int64_t parametersOf(const Graph& g) {
  int64_t n = 0;
  for (const Tensor& t : g.initializers) n += std::max<int64_t>(0, t.numElements());
  for (const Node& node : g.nodes)
    if (node.is("Constant"))
      if (const Attribute* a = node.attr("value"); a && !a->tensors.empty() && isFloating(a->tensors[0].dtype))
        n += std::max<int64_t>(0, a->tensors[0].numElements());
  return n;
}

bool nondeterministic(const Node& n) {
  static const std::set<std::string, std::less<>> ops = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                                          "RandomUniformLike", "Multinomial", "Bernoulli"};
  return !n.isDefaultDomain() || ops.count(n.opType) || n.hasSubgraphs();
}

// Values a compiler computes at build time: constants, static shapes and everything computed
// from them alone. `outer` holds those of the enclosing graphs.
class FoldableValues {
 public:
  FoldableValues(const Graph& g, const TypeScope& scope, const FoldableValues* outer)
      : m_index(&scope.index()), m_outer(outer), m_nodes(g.nodes.size(), false) {
    for (size_t i : g.topologicalOrder()) {
      const Node& n = g.nodes[i];
      if (nondeterministic(n)) continue;
      bool folds = true;
      if (n.is("Shape") || n.is("Size")) {
        const TypeInfo* t = scope.type(n.input(0));
        folds = t && t->shape && t->shape->fullyKnown();
      } else {
        for (const auto& in : n.inputs) folds = folds && (in.empty() || contains(in));
      }
      m_nodes[i] = folds;
    }
  }
  // An initializer that is no graph input (an input's default may be overridden), or the output
  // of a node that folds; nodes are visited producers first, so a producer is decided already.
  bool contains(std::string_view v) const {
    for (const FoldableValues* f = this; f; f = f->m_outer) {
      if (f->m_index->initializer(v) && !f->m_index->isGraphInput(v)) return true;
      if (const long p = f->m_index->producer(v); p >= 0) return f->m_nodes[static_cast<size_t>(p)];
    }
    return false;
  }
  bool node(size_t i) const { return i < m_nodes.size() && m_nodes[i]; }

 private:
  const GraphIndex* m_index;  // of the graph, which outlives this
  const FoldableValues* m_outer;
  std::vector<bool> m_nodes;
};

// Holds every figure of a node at kCostCeiling (NaN too); true when one was held.
bool saturate(OpCost& c) {
  bool held = false;
  for (double* v : {&c.flops, &c.macs, &c.bytesRead, &c.bytesWritten, &c.paramBytes, &c.float32Bytes})
    if (!(*v <= kCostCeiling)) {
      *v = kCostCeiling;
      held = true;
    }
  return held;
}

class Walker {
 public:
  explicit Walker(const Progress& p) : m_progress(p) {}

  // `given`: the graph's index when the caller has one already.
  GraphCost graph(const Graph& g, const TypeScope* outer, const std::string& prefix,
                  const FoldableValues* outerFoldable = nullptr, const GraphIndex* given = nullptr) {
    std::optional<GraphIndex> own;
    const GraphIndex& index = given ? *given : own.emplace(g);
    TypeScope scope(index, outer);
    const FoldableValues foldable(g, scope, outerFoldable);
    m_foldable = &foldable;
    GraphCost gc;
    const size_t n = g.nodes.size();
    gc.nodes.resize(n);
    gc.subgraphs.resize(n);
    gc.subgraphUse.resize(n);
    gc.parameters = parametersOf(g);
    for (size_t i = 0; i < n; ++i) {
      if (!outer) m_progress.report("cost", n ? static_cast<double>(i) / static_cast<double>(n) : 1.0);
      if (m_progress.cancelled()) m_cancelled = true;
      const Node& node = g.nodes[i];
      bool listSelf = true;
      OpCost& c = gc.nodes[i];
      if (m_cancelled) c = cost::unknownCost("cancelled");
      else c = nodeCost(node, scope, prefix, gc.subgraphs[i], listSelf, gc.subgraphUse[i]);
      if (!c.known && c.reason.empty()) c.reason = "cost unknown";
      if (saturate(c)) gc.saturated.push_back(prefix + node.name);
      c.foldable = foldable.node(i);
      gc.foldableNodes += c.foldable;
      gc.flops += c.flops;
      gc.macs += c.macs;
      gc.bytesRead += c.bytesRead;
      gc.bytesWritten += c.bytesWritten;
      gc.paramBytes += c.paramBytes;
      gc.float32Bytes += c.float32Bytes;
      (c.known ? gc.knownNodes : gc.unknownNodes)++;
      if (!c.known && listSelf) gc.unknown.push_back({prefix + node.name, node.opType, node.domain, c.reason});
      for (const GraphCost& sub : gc.subgraphs[i]) {
        gc.parameters += sub.parameters;
        gc.unknown.insert(gc.unknown.end(), sub.unknown.begin(), sub.unknown.end());
        gc.saturated.insert(gc.saturated.end(), sub.saturated.begin(), sub.saturated.end());
      }
    }
    for (double* total : {&gc.flops, &gc.macs, &gc.bytesRead, &gc.bytesWritten, &gc.paramBytes, &gc.float32Bytes})
      if (!(*total <= kCostCeiling)) {
        *total = kCostCeiling;
        gc.totalsSaturated = true;
      }
    if (!outer) {
      for (const UnknownCost& u : gc.unknown) ++gc.unknownByOp[u.domain.empty() ? u.opType : u.domain + ":" + u.opType];
      m_progress.report("cost", 1.0);
    }
    return gc;
  }

  OpCost nodeCost(const Node& node, const TypeScope& scope, const std::string& prefix, std::vector<GraphCost>& subs,
                  bool& listSelf, GraphCost::SubgraphUse& use) {
    CostContext ctx(node, scope);
    if (node.hasSubgraphs()) {
      std::vector<std::string> names;
      for (const Attribute& a : node.attributes)
        for (const Graph& sg : a.graphs) {
          const FoldableValues* here = m_foldable;
          subs.push_back(graph(sg, &scope, prefix + node.name + "/" + a.name + "/", here));
          m_foldable = here;
          names.push_back(a.name);
        }
      return controlFlow(ctx, subs, names, listSelf, use);
    }
    if (cost::CostFn fn = CostRegistry::instance().find(node.domain, node.opType)) return fn(ctx);
    const bool standard = node.isDefaultDomain();
    return cost::unknownCost("no cost formula for " + (standard ? std::string() : node.domain + ":") + node.opType);
  }

  bool cancelled() const { return m_cancelled; }

 private:
  // If: the branch taken when the condition is constant, else the more expensive one (an upper
  // bound). Loop: body x trip count when M is constant, else body once and flagged. Scan: body x
  // the length of the scanned axis.
  OpCost controlFlow(const CostContext& ctx, const std::vector<GraphCost>& subs, const std::vector<std::string>& names,
                     bool& listSelf, GraphCost::SubgraphUse& use) {
    const Node& n = ctx.node();
    listSelf = false;  // unknown subgraph nodes are listed themselves
    auto branch = [&](std::string_view name) -> const GraphCost* {
      for (size_t i = 0; i < names.size(); ++i) if (names[i] == name) return &subs[i];
      return nullptr;
    };
    auto counted = [&](const GraphCost* g, double times) {
      use.index = static_cast<int>(g - subs.data());
      use.times = times;
      return fromSubgraph(*g, times, ctx);
    };
    if (n.is("If")) {
      const GraphCost *thenG = branch("then_branch"), *elseG = branch("else_branch");
      if (!thenG || !elseG) return cost::unknownCost("If without both branches");
      const GraphCost* taken = nullptr;
      if (const Tensor* cond = ctx.inputConstant(0); cond && cond->scalar())
        taken = *cond->scalar() != 0 ? thenG : elseG;
      else
        taken = (thenG->flops > elseG->flops || (thenG->flops == elseG->flops && thenG->bytes() >= elseG->bytes()))
                    ? thenG : elseG;
      return counted(taken, 1);
    }
    if (n.is("Loop")) {
      const GraphCost* body = branch("body");
      if (!body) return cost::unknownCost("Loop without a body");
      const Tensor* m = ctx.inputConstant(0);
      auto trips = m ? m->scalar() : std::nullopt;
      if (!trips || *trips < 0 || *trips >= double(kWhileSentinel)) {
        OpCost c = counted(body, 1);
        c.known = false;
        c.reason = "Loop trip count is not a constant; the body is counted once";
        listSelf = true;
        return c;
      }
      return counted(body, *trips);
    }
    if (n.is("Scan")) {
      const GraphCost* body = branch("body");
      if (!body) return cost::unknownCost("Scan without a body");
      const int64_t scanInputs = n.attrInt("num_scan_inputs", 0);
      // Scan-8 has a batch axis 0 and scans axis 1; Scan-9+ scans scan_input_axes (default 0).
      const bool v8 = n.attr("directions") != nullptr;
      const size_t first = ctx.inputCount() - static_cast<size_t>(std::max<int64_t>(scanInputs, 0));
      cost::Dims axes = n.attrInts("scan_input_axes");
      int64_t axis = axes.empty() ? 0 : axes[0];
      auto x = ctx.inputDims(first);
      if (scanInputs <= 0 || !x || x->empty()) {
        OpCost c = counted(body, 1);
        c.known = false;
        c.reason = "Scan length unknown (shape of the scanned input); the body is counted once";
        listSelf = true;
        return c;
      }
      if (axis < 0) axis += static_cast<int64_t>(x->size());
      if (axis < 0 || axis >= static_cast<int64_t>(x->size())) return cost::unknownCost("Scan axis out of range");
      if (v8 && x->size() >= 2) return counted(body, static_cast<double>((*x)[0] * (*x)[1]));
      return counted(body, static_cast<double>((*x)[static_cast<size_t>(axis)]));
    }
    listSelf = true;
    return cost::unknownCost("no cost formula for " + n.opType + " with subgraphs");
  }

  const Progress& m_progress;
  bool m_cancelled = false;
  const FoldableValues* m_foldable = nullptr;  // of the graph being walked
};

}  // namespace

GraphCost computeCosts(const Graph& graph, const Progress& progress) {
  Walker w(progress);
  return w.graph(graph, nullptr, {});
}

GraphCost computeCosts(const GraphIndex& index, const Progress& progress) {
  Walker w(progress);
  return w.graph(index.graph(), nullptr, {}, nullptr, &index);
}

OpCost computeNodeCost(const Graph& graph, size_t nodeIndex) {
  if (nodeIndex >= graph.nodes.size()) return cost::unknownCost("no such node");
  GraphIndex index(graph);
  TypeScope scope(index, nullptr);
  Walker w(Progress::none());
  std::vector<GraphCost> subs;
  bool listSelf = true;
  GraphCost::SubgraphUse use;
  OpCost c = w.nodeCost(graph.nodes[nodeIndex], scope, {}, subs, listSelf, use);
  if (!c.known && c.reason.empty()) c.reason = "cost unknown";
  c.foldable = FoldableValues(graph, scope, nullptr).node(nodeIndex);
  return c;
}

std::vector<std::string> costedOpTypes() {
  auto v = CostRegistry::instance().opTypes();
  for (const char* op : {"If", "Loop", "Scan"}) v.emplace_back(op);
  std::sort(v.begin(), v.end());
  return v;
}

bool hasCostFormula(std::string_view opType, std::string_view domain) {
  if ((domain.empty() || domain == "ai.onnx") && (opType == "If" || opType == "Loop" || opType == "Scan")) return true;
  return CostRegistry::instance().find(domain, opType) != nullptr;
}

}  // namespace msa
