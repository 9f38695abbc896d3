#include "rules/fusion_patterns.h"

#include <algorithm>
#include <cmath>

#include "rules/op_sets.h"
#include "rules/rule_util.h"

namespace msa {
namespace {

// The scalar value of a constant input, if it is one.
std::optional<double> constScalar(const AnalysisContext& ctx, std::string_view value) {
  const Tensor* t = ctx.index->constant(value);
  return t ? t->scalar() : std::nullopt;
}

bool near(std::optional<double> v, double target, double tol = 1e-3) {
  return v && std::fabs(*v - target) <= tol * std::max(1.0, std::fabs(target));
}

// For a binary node reading `value`, the other operand (empty if `value` is not an operand).
std::string otherOperand(const Node& n, std::string_view value) {
  if (n.inputs.size() != 2) return {};
  if (n.inputs[0] == value) return n.inputs[1];
  if (n.inputs[1] == value) return n.inputs[0];
  return {};
}

// The consumer of `value` with op `op` (any, when several consumers), or -1.
long consumerWithOp(const AnalysisContext& ctx, std::string_view value, std::string_view op) {
  for (const Use& u : ctx.index->consumers(value))
    if (ctx.node(u.node).is(op)) return static_cast<long>(u.node);
  return -1;
}

std::vector<std::string> blockersFor(const AnalysisContext& ctx, const std::vector<size_t>& members) {
  std::vector<std::string> outputs;
  if (!members.empty()) outputs.push_back(ctx.node(members.back()).outputs[0]);
  return groupBlockers(ctx, members, outputs);
}

// Activation on `value`: a single activation node, or SiLU / hard-swish written as x·f(x).
std::vector<size_t> activationOn(const AnalysisContext& ctx, const std::string& value, std::string& label) {
  auto uses = ctx.index->consumers(value);
  if (ctx.index->isGraphOutput(value)) return {};
  if (uses.size() == 1 && isActivation(ctx.node(uses[0].node))) {
    const Node& a = ctx.node(uses[0].node);
    label = a.opType;
    return {uses[0].node};
  }
  if (uses.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const Node& gate = ctx.node(uses[k].node);
      const Node& mul = ctx.node(uses[1 - k].node);
      if ((gate.is("Sigmoid") || gate.is("HardSigmoid")) && mul.is("Mul") &&
          otherOperand(mul, value) == gate.outputs[0]) {
        label = gate.is("Sigmoid") ? "SiLU" : "HardSwish";
        return {uses[k].node, uses[1 - k].node};
      }
    }
  }
  return {};
}

// Attribute problems that keep an activation out of a fused kernel.
void checkActivation(const AnalysisContext& ctx, const std::vector<size_t>& act, std::vector<std::string>& blockers) {
  for (size_t a : act) {
    const Node& n = ctx.node(a);
    if (n.is("Clip"))
      for (size_t k = 1; k < n.inputs.size(); ++k)
        if (!n.inputs[k].empty() && !ctx.index->constant(n.inputs[k])) blockers.push_back("not_constant:" + n.inputs[k]);
  }
}

}  // namespace

std::optional<PatternMatch> matchConvBnAct(const AnalysisContext& ctx, size_t conv) {
  const Node& c = ctx.node(conv);
  if ((!c.is("Conv") && !c.is("ConvTranspose")) || c.outputs.empty()) return std::nullopt;
  PatternMatch m;
  m.members.push_back(conv);
  std::string v = c.outputs[0];
  long bn = consumerWithOp(ctx, v, "BatchNormalization");
  if (bn >= 0 && ctx.node(static_cast<size_t>(bn)).input(0) == v) {
    const Node& b = ctx.node(static_cast<size_t>(bn));
    m.members.push_back(static_cast<size_t>(bn));
    if (b.attrInt("training_mode", 0) != 0) m.blockers.push_back("training_mode");
    for (size_t k = 1; k < b.inputs.size() && k < 5; ++k)
      if (!ctx.index->constant(b.inputs[k])) m.blockers.push_back("not_constant:" + b.inputs[k]);
    for (size_t k = 1; k < c.inputs.size(); ++k)
      if (!c.inputs[k].empty() && !ctx.index->constant(c.inputs[k])) m.blockers.push_back("not_constant:" + c.inputs[k]);
    v = b.outputs[0];
  }
  auto act = activationOn(ctx, v, m.label);
  checkActivation(ctx, act, m.blockers);
  m.members.insert(m.members.end(), act.begin(), act.end());
  if (m.members.size() < 2) return std::nullopt;
  auto more = blockersFor(ctx, m.members);
  m.blockers.insert(m.blockers.end(), more.begin(), more.end());
  return m;
}

std::optional<PatternMatch> matchMatMulAddAct(const AnalysisContext& ctx, size_t mm) {
  const Node& n = ctx.node(mm);
  bool gemmWithBias = n.is("Gemm") && n.inputs.size() > 2 && !n.inputs[2].empty();
  if ((!n.is("MatMul") && !n.is("Gemm")) || n.outputs.empty()) return std::nullopt;
  PatternMatch m;
  m.members.push_back(mm);
  std::string v = n.outputs[0];
  if (!gemmWithBias) {
    long add = soleConsumer(ctx, v, "Add");
    if (add < 0 && consumerWithOp(ctx, v, "Add") >= 0) add = consumerWithOp(ctx, v, "Add");
    if (add < 0) return std::nullopt;
    const Node& a = ctx.node(static_cast<size_t>(add));
    std::string bias = otherOperand(a, v);
    const Tensor* bt = bias.empty() ? nullptr : ctx.index->constant(bias);
    if (!bt) return std::nullopt;  // a residual Add, not a bias
    m.members.push_back(static_cast<size_t>(add));
    v = a.outputs[0];
  }
  std::vector<size_t> act;
  if (auto g = matchGeluFrom(ctx, v)) {
    act = g->members;
    m.label = g->label;
  } else {
    act = activationOn(ctx, v, m.label);
  }
  m.members.insert(m.members.end(), act.begin(), act.end());
  if (m.members.size() < 2) return std::nullopt;
  m.blockers = blockersFor(ctx, m.members);
  return m;
}

std::optional<PatternMatch> matchLayerNorm(const AnalysisContext& ctx, size_t rm) {
  const Node& r1 = ctx.node(rm);
  if (!r1.is("ReduceMean") || r1.inputs.empty()) return std::nullopt;
  const std::string x = r1.inputs[0];
  // Sub(x, mean)
  long sub = -1;
  for (const Use& u : ctx.index->consumers(r1.outputs[0])) {
    const Node& s = ctx.node(u.node);
    if (s.is("Sub") && s.inputs.size() == 2 && s.inputs[0] == x && s.inputs[1] == r1.outputs[0]) sub = static_cast<long>(u.node);
  }
  if (sub < 0) return std::nullopt;
  const std::string d = ctx.node(static_cast<size_t>(sub)).outputs[0];
  // Square: Pow(d, 2) or Mul(d, d).
  long sq = -1;
  for (const Use& u : ctx.index->consumers(d)) {
    const Node& s = ctx.node(u.node);
    if ((s.is("Pow") && s.inputs[0] == d && near(constScalar(ctx, s.input(1)), 2.0)) ||
        (s.is("Mul") && s.inputs.size() == 2 && s.inputs[0] == d && s.inputs[1] == d))
      sq = static_cast<long>(u.node);
  }
  if (sq < 0) return std::nullopt;
  long r2 = soleConsumer(ctx, ctx.node(static_cast<size_t>(sq)).outputs[0], "ReduceMean");
  if (r2 < 0) return std::nullopt;
  long addEps = soleConsumer(ctx, ctx.node(static_cast<size_t>(r2)).outputs[0], "Add");
  if (addEps < 0) return std::nullopt;
  const Node& ae = ctx.node(static_cast<size_t>(addEps));
  if (!constScalar(ctx, otherOperand(ae, ctx.node(static_cast<size_t>(r2)).outputs[0]))) return std::nullopt;
  long sqrt = soleConsumer(ctx, ae.outputs[0], "Sqrt");
  if (sqrt < 0) return std::nullopt;
  const std::string s = ctx.node(static_cast<size_t>(sqrt)).outputs[0];
  PatternMatch m;
  m.members = {rm, static_cast<size_t>(sub), static_cast<size_t>(sq), static_cast<size_t>(r2),
               static_cast<size_t>(addEps), static_cast<size_t>(sqrt)};
  std::string normed;
  if (long div = soleConsumer(ctx, s, "Div"); div >= 0 && ctx.node(static_cast<size_t>(div)).input(0) == d) {
    m.members.push_back(static_cast<size_t>(div));
    normed = ctx.node(static_cast<size_t>(div)).outputs[0];
  } else if (long rec = soleConsumer(ctx, s, "Reciprocal"); rec >= 0) {
    long mul = soleConsumer(ctx, ctx.node(static_cast<size_t>(rec)).outputs[0], "Mul");
    if (mul < 0 || otherOperand(ctx.node(static_cast<size_t>(mul)), ctx.node(static_cast<size_t>(rec)).outputs[0]) != d)
      return std::nullopt;
    m.members.push_back(static_cast<size_t>(rec));
    m.members.push_back(static_cast<size_t>(mul));
    normed = ctx.node(static_cast<size_t>(mul)).outputs[0];
  } else {
    return std::nullopt;
  }
  m.label = "LayerNorm";
  // Optional affine tail: Mul(γ) then Add(β), both constants.
  if (long g = soleConsumer(ctx, normed, "Mul"); g >= 0 && ctx.index->constant(otherOperand(ctx.node(static_cast<size_t>(g)), normed))) {
    m.members.push_back(static_cast<size_t>(g));
    normed = ctx.node(static_cast<size_t>(g)).outputs[0];
    if (long b = soleConsumer(ctx, normed, "Add"); b >= 0 && ctx.index->constant(otherOperand(ctx.node(static_cast<size_t>(b)), normed)))
      m.members.push_back(static_cast<size_t>(b));
  }
  // Both reductions must run over the same trailing axes for LayerNormalization to express it.
  auto axes1 = r1.attrInts("axes"), axes2 = ctx.node(static_cast<size_t>(r2)).attrInts("axes");
  if (axes1 != axes2) m.blockers.push_back("attributes:ReduceMean axes differ");
  const Shape* xs = ctx.index->shape(x);
  if (!xs) m.blockers.push_back("unknown_shape:" + x);
  else if (!axes1.empty()) {
    int64_t rank = static_cast<int64_t>(xs->rank());
    std::vector<int64_t> norm;
    for (int64_t a : axes1) norm.push_back(a < 0 ? a + rank : a);
    std::sort(norm.begin(), norm.end());
    for (size_t k = 0; k < norm.size(); ++k)
      if (norm[k] != rank - static_cast<int64_t>(norm.size() - k)) {
        m.blockers.push_back("attributes:not the trailing axes");
        break;
      }
  }
  auto more = blockersFor(ctx, m.members);
  m.blockers.insert(m.blockers.end(), more.begin(), more.end());
  return m;
}

std::optional<PatternMatch> matchSoftmax(const AnalysisContext& ctx, size_t node) {
  const Node& first = ctx.node(node);
  size_t expIdx = node;
  std::vector<size_t> prefix;
  if (first.is("ReduceMax")) {
    long sub = consumerWithOp(ctx, first.outputs[0], "Sub");
    if (sub < 0 || ctx.node(static_cast<size_t>(sub)).input(0) != first.input(0)) return std::nullopt;
    long e = soleConsumer(ctx, ctx.node(static_cast<size_t>(sub)).outputs[0], "Exp");
    if (e < 0) return std::nullopt;
    prefix = {node, static_cast<size_t>(sub)};
    expIdx = static_cast<size_t>(e);
  } else if (!first.is("Exp")) {
    return std::nullopt;
  } else if (const Node* p = ctx.index->producerNode(first.input(0)); p && p->is("Sub")) {
    if (const Node* mx = ctx.index->producerNode(p->input(1)); mx && mx->is("ReduceMax") && mx->input(0) == p->input(0))
      return std::nullopt;  // anchored at the ReduceMax instead
  }
  const std::string e = ctx.node(expIdx).outputs[0];
  long sum = consumerWithOp(ctx, e, "ReduceSum");
  long div = consumerWithOp(ctx, e, "Div");
  if (sum < 0 || div < 0) return std::nullopt;
  const Node& dv = ctx.node(static_cast<size_t>(div));
  if (dv.input(0) != e || dv.input(1) != ctx.node(static_cast<size_t>(sum)).outputs[0]) return std::nullopt;
  PatternMatch m;
  m.members = prefix;
  m.members.insert(m.members.end(), {expIdx, static_cast<size_t>(sum), static_cast<size_t>(div)});
  m.label = prefix.empty() ? "Softmax" : "Softmax(stable)";
  m.blockers = blockersFor(ctx, m.members);
  return m;
}

std::optional<PatternMatch> matchGeluFrom(const AnalysisContext& ctx, const std::string& x) {
  for (const Use& u : ctx.index->consumers(x)) {
    const Node& d = ctx.node(u.node);
    // erf form: x/√2 (or x·1/√2) → Erf → +1 → ·x → ·0.5, the ·0.5 possibly applied to x first.
    bool scale = (d.is("Div") && d.input(0) == x && near(constScalar(ctx, d.input(1)), std::sqrt(2.0))) ||
                 (d.is("Mul") && near(constScalar(ctx, otherOperand(d, x)), 1.0 / std::sqrt(2.0)));
    if (scale) {
      long erf = soleConsumer(ctx, d.outputs[0], "Erf");
      if (erf < 0) continue;
      long add = soleConsumer(ctx, ctx.node(static_cast<size_t>(erf)).outputs[0], "Add");
      if (add < 0) continue;
      const Node& a = ctx.node(static_cast<size_t>(add));
      if (!near(constScalar(ctx, otherOperand(a, ctx.node(static_cast<size_t>(erf)).outputs[0])), 1.0)) continue;
      long m1 = soleConsumer(ctx, a.outputs[0], "Mul");
      if (m1 < 0) continue;
      const Node& mul1 = ctx.node(static_cast<size_t>(m1));
      std::string other = otherOperand(mul1, a.outputs[0]);
      PatternMatch m;
      m.label = "GELU(erf)";
      m.members = {u.node, static_cast<size_t>(erf), static_cast<size_t>(add)};
      if (other == x) {  // (x·(1+erf))·0.5
        long m2 = soleConsumer(ctx, mul1.outputs[0], "Mul");
        if (m2 < 0 || !near(constScalar(ctx, otherOperand(ctx.node(static_cast<size_t>(m2)), mul1.outputs[0])), 0.5)) continue;
        m.members.push_back(static_cast<size_t>(m1));
        m.members.push_back(static_cast<size_t>(m2));
      } else if (const Node* h = ctx.index->producerNode(other); h && h->is("Mul") &&
                 near(constScalar(ctx, otherOperand(*h, x)), 0.5)) {  // (0.5·x)·(1+erf)
        m.members.insert(m.members.begin(), static_cast<size_t>(ctx.index->producer(other)));
        m.members.push_back(static_cast<size_t>(m1));
      } else if (near(constScalar(ctx, other), 0.5)) {  // x·((1+erf)·0.5)
        long m2 = soleConsumer(ctx, mul1.outputs[0], "Mul");
        if (m2 < 0 || otherOperand(ctx.node(static_cast<size_t>(m2)), mul1.outputs[0]) != x) continue;
        m.members.push_back(static_cast<size_t>(m1));
        m.members.push_back(static_cast<size_t>(m2));
      } else {
        continue;
      }
      m.blockers = blockersFor(ctx, m.members);
      return m;
    }
    // tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
    if (d.is("Pow") && d.input(0) == x && near(constScalar(ctx, d.input(1)), 3.0)) {
      std::vector<size_t> members{u.node};
      std::string v = d.outputs[0];
      bool ok = true, sawTanh = false;
      for (int step = 0; step < 8 && ok; ++step) {
        long next = soleConsumer(ctx, v);
        if (next < 0) { ok = false; break; }
        const Node& nn = ctx.node(static_cast<size_t>(next));
        if (!nn.is("Mul") && !nn.is("Add") && !nn.is("Tanh")) { ok = false; break; }
        members.push_back(static_cast<size_t>(next));
        sawTanh |= nn.is("Tanh");
        v = nn.outputs[0];
        // Done once the product with x (or 0.5·x) has been taken after the tanh.
        std::string other = otherOperand(nn, members.size() > 1 ? ctx.node(members[members.size() - 2]).outputs[0] : x);
        if (sawTanh && nn.is("Mul") && (other == x)) {
          if (long half = soleConsumer(ctx, v, "Mul"); half >= 0 && near(constScalar(ctx, otherOperand(ctx.node(static_cast<size_t>(half)), v)), 0.5))
            members.push_back(static_cast<size_t>(half));
          PatternMatch m;
          m.label = "GELU(tanh)";
          m.members = members;
          m.blockers = blockersFor(ctx, m.members);
          return m;
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<PatternMatch> matchGeluAt(const AnalysisContext& ctx, size_t node) {
  const Node& n = ctx.node(node);
  if (n.inputs.empty()) return std::nullopt;
  for (const auto& in : n.inputs) {
    auto m = matchGeluFrom(ctx, in);
    if (m && m->members.front() == node) return m;
  }
  return std::nullopt;
}

std::vector<int64_t> permutationOf(const AnalysisContext& ctx, const Node& t) {
  auto perm = t.attrInts("perm");
  if (!perm.empty()) return perm;
  const Shape* s = ctx.index->shape(t.input(0));
  if (!s) return {};
  for (int64_t i = static_cast<int64_t>(s->rank()) - 1; i >= 0; --i) perm.push_back(i);
  return perm;
}

bool isIdentitySplitConcat(const AnalysisContext& ctx, const Node& concat, const std::vector<size_t>& members) {
  // One Split whose outputs feed the Concat in order, along the same axis.
  if (members.size() != 2) return false;
  const Node& s = ctx.node(members[0]);
  if (!s.is("Split") || s.outputs != concat.inputs) return false;
  const Shape* src = ctx.index->shape(s.input(0));
  int64_t rank = src ? static_cast<int64_t>(src->rank()) : -1;
  auto norm = [&](int64_t a) { return a < 0 && rank > 0 ? a + rank : a; };
  return rank > 0 && norm(s.attrInt("axis", 0)) == norm(concat.attrInt("axis", 0));
}

}  // namespace msa
