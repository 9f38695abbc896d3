// Runtime-specific (ONNX Runtime, com.microsoft domain) MatMul fusions, as ONNX Runtime defines
// the contrib operators (core/graph/contrib_ops):
//  - MatMul -> Add(1-D bias over the last axis) -> GELU  =>  MatMul -> BiasGelu(A, bias).
//    GELU is ai.onnx Gelu (opset 20, approximate "none"), com.microsoft Gelu, or the exact erf
//    form exporters write: x·0.5·(1 + erf(x/√2)) in any of its usual association orders.
//  - MatMul -> Add(bias) -> tanh GELU (com.microsoft FastGelu without a bias, as fuse_gelu writes
//    it, or ai.onnx Gelu approximate "tanh")  =>  MatMul -> FastGelu(A, bias).
//  - MatMul -> Mul/Div by a constant scalar  =>  FusedMatMul(alpha) (attention's Q·Kᵀ/√d).
// BiasGelu computes the same function with one pass over the data instead of six.
#include <cmath>
#include <optional>

#include "model/graph_index.h"
#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

constexpr const char* kMsDomain = "com.microsoft";

std::optional<double> scalarOf(const GraphIndex& idx, std::string_view value) {
  const Tensor* t = idx.constant(value);
  // Rank 0 or 1 only: a [1,1,1,1] "scalar" would broadcast a lower-rank operand up.
  if (!t || t->numElements() != 1 || t->dims.size() > 1) return std::nullopt;
  return t->scalar();
}

bool near(std::optional<double> v, double want) { return v && std::fabs(*v - want) <= 1e-4 * std::fabs(want); }

// The other input of a binary node, given one of them; empty when `known` is not an input.
std::string otherInput(const Node& n, std::string_view known) {
  if (n.inputs.size() != 2) return {};
  if (n.inputs[0] == known) return n.inputs[1];
  if (n.inputs[1] == known) return n.inputs[0];
  return {};
}

const Node* soleConsumer(const GraphIndex& idx, const Graph& g, std::string_view value) {
  if (!singleUse(idx, value)) return nullptr;
  return &g.nodes[idx.consumers(value)[0].node];
}

struct GeluMatch {
  std::vector<const Node*> nodes;  // every node of the GELU, the Add feeding it excluded
  std::string output;
  bool tanh = false;  // the tanh approximation (FastGelu), else exact GELU (BiasGelu)
};

// GELU applied to `x`: a Gelu node, or the erf decomposition. Every consumer of `x` must be part
// of it (x disappears into BiasGelu).
std::optional<GeluMatch> matchGeluSpelled(const GraphIndex& idx, const Graph& g, std::string_view x) {
  auto uses = idx.consumers(x);
  if (idx.isGraphOutput(x) || uses.empty()) return std::nullopt;
  const Node& first = g.nodes[uses[0].node];
  if (uses.size() == 1 && first.outputs.size() == 1 &&
      ((first.is("Gelu") && first.attrString("approximate", "none") == "none") ||
       (first.opType == "Gelu" && first.domain == kMsDomain)))
    return GeluMatch{{&first}, first.outputs[0], false};
  if (uses.size() == 1 && first.outputs.size() == 1 &&
      ((first.is("Gelu") && first.attrString("approximate", "none") == "tanh") ||
       (first.opType == "FastGelu" && first.domain == kMsDomain && first.inputs.size() == 1)))
    return GeluMatch{{&first}, first.outputs[0], true};
  if (uses.size() != 2) return std::nullopt;
  // x/√2 (or x·(1/√2)) -> Erf -> +1
  const Node* scale = nullptr;
  const Node* other = nullptr;
  for (const Use& u : uses) {
    const Node& n = g.nodes[u.node];
    auto c = scalarOf(idx, otherInput(n, x));
    if ((n.is("Div") && n.inputs[0] == x && near(c, std::sqrt(2.0))) || (n.is("Mul") && near(c, std::sqrt(0.5))))
      scale = &n;
    else
      other = &n;
  }
  if (!scale || !other || !other->is("Mul")) return std::nullopt;
  const Node* erf = soleConsumer(idx, g, scale->outputs[0]);
  if (!erf || !erf->is("Erf")) return std::nullopt;
  const Node* plus = soleConsumer(idx, g, erf->outputs[0]);
  if (!plus || !plus->is("Add") || !near(scalarOf(idx, otherInput(*plus, erf->outputs[0])), 1.0)) return std::nullopt;
  const Node* m1 = soleConsumer(idx, g, plus->outputs[0]);
  if (!m1 || !m1->is("Mul")) return std::nullopt;
  GeluMatch m{{scale, erf, plus, m1}, {}};
  const std::string m1Other = otherInput(*m1, plus->outputs[0]);
  if (m1 == other && m1Other == x) {  // (x·(1+erf))·0.5
    const Node* half = soleConsumer(idx, g, m1->outputs[0]);
    if (!half || !half->is("Mul") || !near(scalarOf(idx, otherInput(*half, m1->outputs[0])), 0.5)) return std::nullopt;
    m.nodes.push_back(half);
    m.output = half->outputs[0];
  } else if (other->outputs.size() == 1 && m1Other == other->outputs[0] && singleUse(idx, other->outputs[0]) &&
             near(scalarOf(idx, otherInput(*other, x)), 0.5)) {  // (x·0.5)·(1+erf)
    m.nodes.push_back(other);
    m.output = m1->outputs[0];
  } else if (near(scalarOf(idx, m1Other), 0.5)) {  // x·((1+erf)·0.5)
    const Node* last = soleConsumer(idx, g, m1->outputs[0]);
    if (!last || last != other || otherInput(*last, m1->outputs[0]) != x) return std::nullopt;
    m.nodes.push_back(last);
    m.output = last->outputs[0];
  } else {
    return std::nullopt;
  }
  return m;
}

// The spellings above, else any decomposed GELU the shared matcher finds and proves (the tanh
// form, torch's and Hugging Face's orders).
std::optional<GeluMatch> matchGelu(const GraphIndex& idx, const Graph& g, std::string_view x) {
  if (auto m = matchGeluSpelled(idx, g, x)) return m;
  auto p = matchGeluFrom(idx, std::string(x));
  if (!p || !p->blockers.empty()) return std::nullopt;
  for (const Use& u : idx.consumers(x))
    if (std::find(p->members.begin(), p->members.end(), u.node) == p->members.end()) return std::nullopt;
  const std::string fn = geluFunction(idx, *p);
  if (fn.empty()) return std::nullopt;
  GeluMatch m;
  for (size_t k : p->members) m.nodes.push_back(&g.nodes[k]);
  m.output = p->output;
  m.tanh = fn == "tanh";
  return m;
}

void importMsDomain(Model& m) {
  if (m.opset(kMsDomain) == 0) m.opsets.push_back({kMsDomain, 1});
}

class FuseMatMulBiasGelu final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      for (const Node& mm : g.nodes) {
        if (!mm.is("MatMul") || mm.outputs.size() != 1 || idx.dtype(mm.outputs[0]) != DType::Float) continue;
        const Node* add = soleConsumer(idx, g, mm.outputs[0]);
        if (!add || !add->is("Add") || add->outputs.size() != 1) continue;
        const std::string bias = otherInput(*add, mm.outputs[0]);
        const Tensor* b = idx.constant(bias);
        const Shape* y = idx.shape(mm.outputs[0]);
        if (!b || b->dtype != DType::Float || b->dims.size() != 1 || !y || y->rank() < 1) continue;
        const Dim& last = y->dims.back();
        if (!last.known() || last.value != b->dims[0]) continue;  // BiasGelu's bias runs along the last axis
        auto gelu = matchGelu(idx, g, add->outputs[0]);
        if (!gelu) continue;
        if (!ctx.matches(mm.name) && !ctx.matches(add->name)) continue;

        Rewrite r{std::string(m_info.id), {}, {add->name}, {mm.name, add->name}, true,
                  gelu->tanh ? "com.microsoft FastGelu with its bias: ONNX Runtime only" : "com.microsoft BiasGelu: ONNX Runtime only"};
        std::vector<NodeId> drop;
        for (const Node* n : gelu->nodes) {
          r.nodesBefore.push_back(n->name);
          drop.push_back(n->id);
        }
        r.nodesBefore.insert(r.nodesBefore.begin(), mm.name);
        Node* a = g.findNode(add->id);
        a->opType = gelu->tanh ? "FastGelu" : "BiasGelu";
        a->domain = kMsDomain;
        a->inputs = {mm.outputs[0], bias};
        a->outputs = {gelu->output};
        a->attributes.clear();
        g.removeNodes(drop);
        importMsDomain(model);
        return r;
      }
      return std::nullopt;
    });
  }

 private:
  PassInfo m_info{"fuse_matmul_bias_activation", OptLevel::Aggressive, true,
                  "MatMul + bias Add + GELU (Gelu or its erf form) -> MatMul + com.microsoft BiasGelu; + tanh GELU "
                  "(FastGelu) -> MatMul + com.microsoft FastGelu with the bias (ONNX Runtime)",
                  false, "com.microsoft BiasGelu/FastGelu"};
};

class FuseMatMulScale final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      for (const Node& mm : g.nodes) {
        const bool plain = mm.is("MatMul");
        const bool fused = mm.opType == "FusedMatMul" && mm.domain == kMsDomain;
        if ((!plain && !fused) || mm.outputs.size() != 1 || idx.dtype(mm.outputs[0]) != DType::Float) continue;
        const Node* s = soleConsumer(idx, g, mm.outputs[0]);
        if (!s || !(s->is("Mul") || (s->is("Div") && s->inputs[0] == mm.outputs[0])) || s->outputs.size() != 1) continue;
        auto c = scalarOf(idx, otherInput(*s, mm.outputs[0]));
        if (!c || *c == 0.0 || !std::isfinite(*c)) continue;
        if (idx.dtype(otherInput(*s, mm.outputs[0])) != DType::Float) continue;
        if (!ctx.matches(mm.name) && !ctx.matches(s->name)) continue;
        const double alpha = mm.attrFloat("alpha", 1.f) * (s->is("Mul") ? *c : 1.0 / *c);
        Rewrite r{std::string(m_info.id), {}, {mm.name, s->name}, {mm.name}, true,
                  "com.microsoft FusedMatMul (alpha): ONNX Runtime only"};
        Node* n = g.findNode(mm.id);
        n->opType = "FusedMatMul";
        n->domain = kMsDomain;
        n->setAttr(Attribute::makeFloat("alpha", static_cast<float>(alpha)));
        n->outputs = {s->outputs[0]};
        NodeId drop[] = {s->id};
        g.removeNodes(drop);
        importMsDomain(model);
        return r;
      }
      return std::nullopt;
    });
  }

 private:
  PassInfo m_info{"fuse_matmul_scale", OptLevel::Aggressive, true,
                  "MatMul + Mul/Div by a constant scalar -> com.microsoft FusedMatMul with alpha (ONNX Runtime)", false,
                  "com.microsoft FusedMatMul"};
};

}  // namespace

std::unique_ptr<Pass> makeFuseMatMulBiasActivation() { return std::make_unique<FuseMatMulBiasGelu>(); }
std::unique_ptr<Pass> makeFuseMatMulScale() { return std::make_unique<FuseMatMulScale>(); }

}  // namespace msa
