// Evaluates the parts of the graph whose inputs are all known before the model runs: constant
// subgraphs, and the shape arithmetic exporters emit (Shape → Gather → Unsqueeze → Concat …)
// once the shapes it reads are static. Shape/Size of a value with a fully known shape become
// constants here; everything downstream is computed by ONNX Runtime (optimizations off), so a
// folded constant holds exactly what the runtime would have computed. A result much larger than
// the constants it came from (Tile, Expand, ConstantOfShape…) is left as it is.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"
#include "profile/ort_session.h"

namespace msa {
namespace {

constexpr int64_t kSmallBytes = 64 * 1024;           // always worth folding (when it copies nothing shared)
constexpr int64_t kTinyBytes = 64;                   // shape vectors and scalars: smaller than the nodes they replace
constexpr int64_t kMaxEvalBytes = int64_t(1) << 30;   // no intermediate beyond this is evaluated

// Ops never folded: random, stateful in meaning, or kept on purpose (QDQ models need their
// DequantizeLinear; Dropout may be training-mode).
const std::unordered_set<std::string_view> kNeverFold{
    "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli",
    "Dropout", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "If", "Loop", "Scan",
    "SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase", "SequenceAt", "SequenceLength",
    "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalGetElement", "OptionalHasElement"};

// Ops whose output is never larger than their inputs together: safe to evaluate even when the
// output shape is not recorded.
const std::unordered_set<std::string_view> kNonExpanding{
    "Shape", "Size", "Slice", "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Identity",
    "Transpose", "Concat", "Split", "Cast", "Neg", "Abs", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round",
    "Exp", "Log", "Sigmoid", "Tanh", "Relu", "Not", "Sign", "ReduceSum", "ReduceMean", "ReduceMax",
    "ReduceMin", "ReduceProd", "ArgMax", "ArgMin"};

int64_t bytesOf(const Tensor& t) { return t.byteSize(); }

struct Plan {
  std::vector<bool> fold;                                // per node index
  std::unordered_map<std::string, Tensor> seeds;         // Shape/Size outputs computed here
  std::vector<std::string> frontier;                     // folded values something else reads
};

class FoldConstants final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    std::unordered_set<std::string> refused;  // node names left alone (too big, or the runtime failed)
    for (int round = 0; round < 8; ++round) {
      if (ctx.progress && ctx.progress->cancelled()) return {};
      GraphIndex idx(g);
      Plan plan = makePlan(g, idx, ctx, refused);
      if (plan.frontier.empty()) return {};
      std::unordered_map<std::string, Tensor> values;
      std::vector<std::string> failed;
      evaluate(model, idx, plan, values, failed);
      bool replan = false;
      for (const auto& v : failed) {
        refused.insert(g.nodes[static_cast<size_t>(idx.producer(v))].name);
        replan = true;
      }
      for (const auto& [name, t] : values)
        if (bytesOf(t) > std::max(kSmallBytes, coneConstantBytes(g, idx, plan, name))) {
          refused.insert(g.nodes[static_cast<size_t>(idx.producer(name))].name);
          replan = true;
        }
      if (!replan) replan = refuseCopies(g, idx, plan, values, ctx, refused);
      if (replan) continue;
      return {apply(g, idx, plan, std::move(values))};
    }
    return {};
  }

 private:
  static Plan makePlan(const Graph& g, const GraphIndex& idx, const PassContext& ctx,
                       const std::unordered_set<std::string>& refused) {
    Plan plan;
    const size_t n = g.nodes.size();
    plan.fold.assign(n, false);
    std::unordered_set<std::string> known;
    std::unordered_map<std::string, int64_t> coneBytes;
    for (const Tensor& t : g.initializers)
      if (!idx.isGraphInput(t.name)) {
        known.insert(t.name);
        coneBytes[t.name] = bytesOf(t);
      }
    auto order = g.topologicalOrder();
    for (size_t i : order) {
      const Node& nd = g.nodes[i];
      if (nd.is("Constant")) {
        for (const auto& o : nd.outputs) {
          known.insert(o);
          if (const Tensor* t = idx.constant(o)) coneBytes[o] = bytesOf(*t);
        }
        continue;
      }
      if (!nd.isDefaultDomain() || nd.hasSubgraphs() || kNeverFold.count(nd.opType) || refused.count(nd.name) ||
          nd.outputs.empty())
        continue;
      if ((nd.is("Shape") || nd.is("Size")) && nd.inputs.size() == 1) {
        const Shape* s = idx.shape(nd.inputs[0]);
        if (!s || !s->fullyKnown() || nd.outputs.size() != 1) continue;
        plan.seeds.emplace(nd.outputs[0], shapeTensor(nd, *s));
        plan.fold[i] = true;
        known.insert(nd.outputs[0]);
        continue;
      }
      bool ready = std::all_of(nd.inputs.begin(), nd.inputs.end(), [&](const std::string& in) { return in.empty() || known.count(in); });
      if (!ready || nd.inputs.empty()) continue;
      // Bytes of the constants this node's inputs come from (an upper bound: shared cones count
      // twice). An output known to be larger than that, and than kSmallBytes, is not worth it.
      int64_t inBytes = 0;
      for (const auto& in : nd.inputs)
        if (auto it = coneBytes.find(in); it != coneBytes.end()) inBytes += it->second;
      bool bounded = true;
      for (const auto& o : nd.outputs) {
        if (o.empty()) continue;
        const TypeInfo* t = idx.type(o);
        if (t && !t->isTensor()) bounded = false;
        const Shape* s = t && t->shape ? &*t->shape : nullptr;
        int64_t elems = s ? s->numElements() : -1;
        int size = t ? dtypeSize(t->elem) : 0;
        if (elems >= 0 && size > 0) {
          const int64_t bytes = elems * size;
          bounded &= bytes <= kMaxEvalBytes && bytes <= std::max(kSmallBytes, inBytes);
        } else {
          bounded &= kNonExpanding.count(nd.opType) != 0;
        }
      }
      if (!bounded) continue;
      plan.fold[i] = true;
      for (const auto& o : nd.outputs) {
        known.insert(o);
        coneBytes[o] = inBytes;
      }
    }
    if (!ctx.anchors.empty()) restrictToAnchors(g, idx, ctx, plan);
    // Values read from outside the folded set: inside subgraphs, by other nodes, as graph outputs.
    std::unordered_set<std::string> subgraphReads;
    for (const Node& nd : g.nodes)
      for (const Attribute& a : nd.attributes)
        for (const Graph& sub : a.graphs)
          sub.forEachGraph([&](const Graph& s, int) {
            for (const Node& sn : s.nodes)
              for (const auto& in : sn.inputs) subgraphReads.insert(in);
          });
    for (size_t i = 0; i < n; ++i) {
      if (!plan.fold[i]) continue;
      for (const auto& o : g.nodes[i].outputs) {
        if (o.empty()) continue;
        bool outside = idx.isGraphOutput(o) || subgraphReads.count(o);
        for (const Use& u : idx.consumers(o)) outside |= !plan.fold[u.node];
        if (outside) plan.frontier.push_back(o);
      }
    }
    // Nothing to gain where the only folded nodes are Shape seeds feeding nothing folded… they
    // still are: a Shape of a static value is a constant. Keep them.
    return plan;
  }

  // Only the connected parts of the folded set that hold an anchor.
  static void restrictToAnchors(const Graph& g, const GraphIndex& idx, const PassContext& ctx, Plan& plan) {
    const size_t n = g.nodes.size();
    std::vector<bool> keep(n, false);
    std::vector<size_t> stack;
    for (size_t i = 0; i < n; ++i)
      if (plan.fold[i] && ctx.matches(g.nodes[i].name)) {
        keep[i] = true;
        stack.push_back(i);
      }
    while (!stack.empty()) {
      size_t i = stack.back();
      stack.pop_back();
      auto visit = [&](size_t j) {
        if (plan.fold[j] && !keep[j]) {
          keep[j] = true;
          stack.push_back(j);
        }
      };
      for (size_t j : idx.successors(i)) visit(j);
      for (size_t j : idx.predecessors(i)) visit(j);
    }
    for (size_t i = 0; i < n; ++i) {
      if (plan.fold[i] && !keep[i])
        for (const auto& o : g.nodes[i].outputs) plan.seeds.erase(o);
      plan.fold[i] = plan.fold[i] && keep[i];
    }
  }

  static Tensor shapeTensor(const Node& nd, const Shape& s) {
    auto dims = s.values();
    if (nd.is("Size")) return int64Tensor({}, {s.numElements()});
    const int64_t rank = static_cast<int64_t>(dims.size());
    int64_t start = nd.attrInt("start", 0), end = nd.attrInt("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    std::vector<int64_t> v(dims.begin() + start, dims.begin() + end);
    return int64Tensor({static_cast<int64_t>(v.size())}, v);
  }

  // Bytes of the constants the folded cone of `value` reads (what the folded result replaces).
  static int64_t coneConstantBytes(const Graph& g, const GraphIndex& idx, const Plan& plan, const std::string& value) {
    return coneBytes(g, idx, plan, value, nullptr);
  }

  // The same, counting only the constants in `only` when given.
  static int64_t coneBytes(const Graph& g, const GraphIndex& idx, const Plan& plan, const std::string& value,
                           const std::unordered_set<std::string>* only) {
    int64_t bytes = 0;
    std::unordered_set<std::string> seen;
    std::vector<std::string> stack{value};
    while (!stack.empty()) {
      std::string v = std::move(stack.back());
      stack.pop_back();
      if (v.empty() || !seen.insert(v).second) continue;
      long p = idx.producer(v);
      if (p < 0 || g.nodes[static_cast<size_t>(p)].is("Constant")) {
        if (const Tensor* t = idx.constant(v); t && (!only || only->count(v))) bytes += bytesOf(*t);
        continue;
      }
      if (!plan.fold[static_cast<size_t>(p)]) continue;
      for (const auto& in : g.nodes[static_cast<size_t>(p)].inputs) stack.push_back(in);
    }
    return bytes;
  }

  // The constants the fold frees: read only by folded nodes (not by a node that stays, a
  // subgraph, or as a graph output), so they disappear with the nodes.
  static std::unordered_set<std::string> freedConstants(const Graph& g, const GraphIndex& idx, const Plan& plan) {
    const auto reads = subgraphReads(g);
    std::unordered_set<std::string> freed;
    auto consider = [&](const std::string& v) {
      if (idx.isGraphOutput(v) || reads.count(v) || idx.isGraphInput(v)) return;
      const auto uses = idx.consumers(v);
      if (!uses.empty() && std::all_of(uses.begin(), uses.end(), [&](const Use& u) { return plan.fold[u.node]; }))
        freed.insert(v);
    };
    for (const Tensor& t : g.initializers) consider(t.name);
    for (const Node& nd : g.nodes)
      if (nd.is("Constant"))
        for (const auto& o : nd.outputs) consider(o);
    return freed;
  }

  // A safe fix never grows the model: a folded result that copies a constant something else
  // still reads (Transpose of a tied embedding that a Gather also reads) is refused. Results of
  // at most kTinyBytes (shape vectors, scalars) replace nodes that take more room than they do.
  // Checked per value (against the constants its cone frees) and over the whole fold (a
  // constant freed once cannot pay for two copies). True when something was refused.
  static bool refuseCopies(const Graph& g, const GraphIndex& idx, const Plan& plan,
                           const std::unordered_map<std::string, Tensor>& values, const PassContext& ctx,
                           std::unordered_set<std::string>& refused) {
    const auto freed = freedConstants(g, idx, plan);
    int64_t freedTotal = 0;
    for (const auto& v : freed)
      if (const Tensor* t = idx.constant(v)) freedTotal += bytesOf(*t);
    int64_t added = 0;
    const std::string* largest = nullptr;
    for (const auto& [name, t] : values) {
      const int64_t b = bytesOf(t);
      if (b <= kTinyBytes) continue;
      added += b;
      if (!largest || b > bytesOf(values.at(*largest))) largest = &name;
      if (b > coneBytes(g, idx, plan, name, &freed)) {
        refuseValue(g, idx, name, b, ctx, refused);
        return true;
      }
    }
    if (largest && added > freedTotal) {
      refuseValue(g, idx, *largest, bytesOf(values.at(*largest)), ctx, refused);
      return true;
    }
    return false;
  }

  static void refuseValue(const Graph& g, const GraphIndex& idx, const std::string& value, int64_t bytes,
                          const PassContext& ctx, std::unordered_set<std::string>& refused) {
    const std::string& node = g.nodes[static_cast<size_t>(idx.producer(value))].name;
    ctx.note(node + ": not folded: its " + std::to_string(bytes) +
             "-byte result would copy a constant that other nodes still read (shared weights stay shared)");
    refused.insert(node);
  }

  // Runs the folded cones in ONNX Runtime; values it could not compute go to `failed`.
  static void evaluate(const Model& model, const GraphIndex& idx, const Plan& plan,
                       std::unordered_map<std::string, Tensor>& values, std::vector<std::string>& failed) {
    std::vector<std::string> wanted;
    for (const auto& v : plan.frontier) {
      if (auto it = plan.seeds.find(v); it != plan.seeds.end()) {
        Tensor t = it->second;
        t.name = v;
        values.emplace(v, std::move(t));
      } else {
        wanted.push_back(v);
      }
    }
    if (wanted.empty()) return;
    if (runCones(model, idx, plan, wanted, values)) return;
    // One of them fails in the runtime: find which, one cone at a time.
    for (const auto& v : wanted) {
      std::vector<std::string> one{v};
      if (!runCones(model, idx, plan, one, values)) failed.push_back(v);
    }
  }

  static bool runCones(const Model& model, const GraphIndex& idx, const Plan& plan,
                       const std::vector<std::string>& wanted, std::unordered_map<std::string, Tensor>& values) {
    const Graph& g = model.graph;
    Model em;
    em.irVersion = model.irVersion;
    em.opsets = model.opsets;
    em.graph.name = "fold_constants";
    std::vector<bool> need(g.nodes.size(), false);
    std::unordered_set<std::string> seen, inits;
    std::vector<std::string> stack(wanted.begin(), wanted.end());
    while (!stack.empty()) {
      std::string v = std::move(stack.back());
      stack.pop_back();
      if (v.empty() || !seen.insert(v).second) continue;
      if (auto it = plan.seeds.find(v); it != plan.seeds.end()) {
        Tensor t = it->second;
        t.name = v;
        em.graph.initializers.push_back(std::move(t));
        continue;
      }
      long p = idx.producer(v);
      if (p < 0) {
        if (const Tensor* t = idx.initializer(v)) em.graph.initializers.push_back(*t);
        continue;
      }
      need[static_cast<size_t>(p)] = true;
      for (const auto& in : g.nodes[static_cast<size_t>(p)].inputs) stack.push_back(in);
    }
    for (size_t i : g.topologicalOrder())
      if (need[i]) em.graph.nodes.push_back(g.nodes[i]);
    em.graph.nextNodeId = g.nextNodeId;
    for (const auto& v : wanted) {
      ValueInfo vi{v, {}, {}, {}};
      if (const TypeInfo* t = idx.type(v)) vi.type = *t;
      else if (DType d = idx.dtype(v); d != DType::Undefined) vi.type = TypeInfo::tensor(d, {});
      if (vi.type.kind == TypeInfo::Kind::Tensor) vi.type.shape.reset();  // the runtime knows
      em.graph.outputs.push_back(std::move(vi));
    }
    RuntimeOptions ro;
    ro.optimization = GraphOptimization::Disabled;
    ro.intraOpThreads = 1;
    auto session = OrtSession::create(em, ro);
    if (!session) return false;
    auto out = session->run(std::span<const DataValue>{});
    if (!out || out->size() != wanted.size()) return false;
    for (size_t k = 0; k < wanted.size(); ++k) {
      if ((*out)[k].kind != DataValue::Kind::Tensor) return false;
      Tensor t = std::move((*out)[k].tensor);
      t.name = wanted[k];
      values[wanted[k]] = std::move(t);
    }
    return true;
  }

  Rewrite apply(Graph& g, const GraphIndex& idx, const Plan& plan, std::unordered_map<std::string, Tensor> values) const {
    Rewrite r{std::string(m_info.id), {}, {}, {}, false, {}};
    std::vector<NodeId> drop;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (plan.fold[i]) {
        drop.push_back(g.nodes[i].id);
        r.nodesBefore.push_back(g.nodes[i].name);
      }
    int64_t bytes = 0;
    std::vector<Node> constants;
    for (const auto& v : plan.frontier) {
      Tensor t = std::move(values.at(v));
      t.name = v;
      t.external.reset();
      bytes += bytesOf(t);
      if (idx.isGraphOutput(v)) {  // a graph output stays produced by a node
        Node c;
        c.opType = "Constant";
        c.outputs = {v};
        t.name.clear();
        c.attributes.push_back(Attribute::makeTensor("value", std::move(t)));
        constants.push_back(std::move(c));
      } else {
        g.initializers.push_back(std::move(t));
      }
    }
    g.removeNodes(drop);
    for (Node& c : constants) {
      c.name = g.uniqueName(c.outputs[0] + "_folded");
      r.nodesAfter.push_back(insertNode(g, 0, std::move(c)).name);
    }
    removeDeadCode(g);
    r.note = std::to_string(r.nodesBefore.size()) + " nodes folded into " + std::to_string(plan.frontier.size()) +
             " constants (" + std::to_string(bytes) + " bytes)";
    return r;
  }

  PassInfo m_info{"fold_constants", OptLevel::Conservative, false,
                  "evaluate constant subgraphs and static shape arithmetic into constants"};
};

}  // namespace

std::unique_ptr<Pass> makeFoldConstants() { return std::make_unique<FoldConstants>(); }

}  // namespace msa
