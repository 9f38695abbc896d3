// Decomposed activations the rules report, as one operator each:
//  - (ReduceMax → Sub →) Exp → ReduceSum → Div over one axis → Softmax(axis).
//  - GELU, erf form 0.5·x·(1 + erf(x/√2)) or tanh form 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))).
//    The matched chain is first proven to compute that formula (evaluated at sample points from its
//    own constants). ONNX has Gelu only from opset 20, which ONNX 1.12 (our checker and shape
//    inference) does not know, and raising 17 → 20 would rewrite every Reduce* node: so below
//    opset 20 the fusion writes ONNX Runtime's com.microsoft Gelu / FastGelu (runtime-specific,
//    aggressive level only); a model already at opset 20 gets the standard Gelu.
#include <cmath>
#include <set>

#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

class FuseSoftmax final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    struct Fusion {
      std::vector<NodeId> ids;
      std::vector<std::string> names;
      Node softmax;
    };
    std::vector<Fusion> fusions;
    {
      GraphIndex idx(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        auto m = matchSoftmax(idx, i);
        if (!m || !m->blockers.empty() || !anyAnchored(ctx, g, m->members)) continue;
        auto axis = softmaxAxis(g, idx, *m, model.opset());
        if (!axis) continue;
        Fusion f;
        for (size_t k : m->members) f.ids.push_back(g.nodes[k].id);
        f.names = nodeNames(g, m->members);
        f.softmax.opType = "Softmax";
        f.softmax.inputs = {m->input};
        f.softmax.outputs = {m->output};
        f.softmax.attributes = {Attribute::makeInt("axis", *axis)};
        fusions.push_back(std::move(f));
      }
    }
    for (auto& f : fusions) {
      f.softmax.name = fusedNodeName(g, f.names, "Softmax");
      std::string name = replaceNodes(g, f.ids, std::move(f.softmax));
      done.push_back({std::string(m_info.id), {}, f.names, {name}, false, {}});
    }
    if (!done.empty()) removeDeadCode(g);
    return done;
  }

 private:
  // The one axis both reductions run over, with keepdims; the last axis only before opset 13,
  // where Softmax flattened everything from `axis` on.
  static std::optional<int64_t> softmaxAxis(const Graph& g, const GraphIndex& idx, const PatternMatch& m, int64_t opset) {
    const Shape* xs = idx.shape(m.input);
    const int64_t rank = xs ? static_cast<int64_t>(xs->rank()) : -1;
    std::optional<int64_t> axis;
    for (size_t k : m.members) {
      const Node& n = g.nodes[k];
      if (!n.is("ReduceSum") && !n.is("ReduceMax")) continue;
      bool known = false;
      auto axes = reduceAxes(n, idx, &known);
      if (!known || n.attrInt("keepdims", 1) != 1) return std::nullopt;
      if (axes.empty() && rank == 1 && n.attrInt("noop_with_empty_axes", 0) == 0) axes = {0};
      if (axes.size() != 1) return std::nullopt;
      int64_t a = axes[0] < 0 && rank > 0 ? axes[0] + rank : axes[0];
      if (axis && *axis != a) return std::nullopt;
      axis = a;
    }
    if (!axis || (rank > 0 && (*axis < 0 || *axis >= rank))) return std::nullopt;
    if (!lnFloat(idx.dtype(m.input))) return std::nullopt;
    if (opset < 13 && (rank < 0 || *axis != rank - 1)) return std::nullopt;
    return axis;
  }
  static bool lnFloat(DType t) { return t == DType::Float || t == DType::Double || t == DType::Float16 || t == DType::BFloat16; }

  PassInfo m_info{"fuse_softmax", OptLevel::Moderate, false,
                  "replace Exp/ReduceSum/Div (after ReduceMax/Sub) over one axis by Softmax"};
};

class FuseGelu final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    const bool standard = model.opset() >= 20;
    struct Fusion {
      std::vector<NodeId> ids;
      std::vector<std::string> names;
      Node gelu;
    };
    std::vector<Fusion> fusions;
    {
      GraphIndex idx(g);
      std::set<size_t> claimed;
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        auto m = matchGeluAt(idx, i);
        if (!m || !m->blockers.empty() || !anyAnchored(ctx, g, m->members)) continue;
        if (std::any_of(m->members.begin(), m->members.end(), [&](size_t k) { return claimed.count(k) != 0; })) continue;
        const bool tanh = m->label == "GELU(tanh)";
        DType t = chainType(idx, *m);
        if (standard ? !(t == DType::Float || t == DType::Double || t == DType::Float16 || t == DType::BFloat16)
                     : t != DType::Float)
          continue;
        if (geluFunction(idx, *m) != (tanh ? "tanh" : "erf")) continue;
        claimed.insert(m->members.begin(), m->members.end());
        Fusion f;
        for (size_t k : m->members) f.ids.push_back(g.nodes[k].id);
        f.names = nodeNames(g, m->members);
        f.gelu.opType = standard || !tanh ? "Gelu" : "FastGelu";
        if (!standard) f.gelu.domain = "com.microsoft";
        if (standard && tanh) f.gelu.attributes.push_back(Attribute::makeString("approximate", "tanh"));
        f.gelu.inputs = {m->input};
        f.gelu.outputs = {m->output};
        fusions.push_back(std::move(f));
      }
    }
    if (!fusions.empty() && !standard && model.opset("com.microsoft") < 1) model.setOpset("com.microsoft", 1);
    for (auto& f : fusions) {
      std::string op = (f.gelu.domain.empty() ? std::string() : f.gelu.domain + ".") + f.gelu.opType;
      f.gelu.name = fusedNodeName(g, f.names, f.gelu.opType);
      std::string name = replaceNodes(g, f.ids, std::move(f.gelu));
      std::string note = standard ? std::string() : op + " (ONNX Runtime contrib op): standard Gelu needs opset 20";
      done.push_back({std::string(m_info.id), {}, f.names, {name}, !standard, note});
    }
    if (!done.empty()) removeDeadCode(g);
    return done;
  }

 private:
  // The element type of the chain: its input's, or (shapes not inferred, as above opset 17) that
  // of its constants, which elementwise ops require to be the same.
  static DType chainType(const GraphIndex& idx, const PatternMatch& m) {
    if (DType t = idx.dtype(m.input); t != DType::Undefined) return t;
    for (size_t k : m.members)
      for (const auto& in : idx.graph().nodes[k].inputs)
        if (const Tensor* c = idx.constant(in)) return c->dtype;
    return DType::Undefined;
  }

  PassInfo m_info{"fuse_gelu", OptLevel::Aggressive, true,
                  "replace a decomposed GELU by Gelu (opset 20) or, below opset 20, ONNX Runtime's com.microsoft Gelu/FastGelu",
                  false, "com.microsoft Gelu/FastGelu", 20};
};

}  // namespace

std::unique_ptr<Pass> makeFuseSoftmax() { return std::make_unique<FuseSoftmax>(); }
std::unique_ptr<Pass> makeFuseGelu() { return std::make_unique<FuseGelu>(); }

}  // namespace msa
