#include "model/graph_patterns.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "model/index_map.h"

namespace msa {
namespace {

bool near(std::optional<double> v, double target, double tol = 1e-3) {
  return v && std::fabs(*v - target) <= tol * std::max(1.0, std::fabs(target));
}

// The consumer of `value` with op `op` (the first, when several consumers), or -1.
long consumerWithOp(const GraphIndex& idx, std::string_view value, std::string_view op) {
  for (const Use& u : idx.consumers(value))
    if (idx.graph().nodes[u.node].is(op)) return static_cast<long>(u.node);
  return -1;
}

const Node& at(const GraphIndex& idx, size_t i) { return idx.graph().nodes[i]; }

// A value known at build time, seen through Identity nodes (torch's export shares equal weights
// that way: `layers.1.norm.weight = Identity(layers.0.norm.weight)`).
bool constantThroughIdentity(const GraphIndex& idx, std::string_view v) {
  for (int depth = 0; depth < 8; ++depth) {
    if (idx.constant(v)) return true;
    const Node* p = idx.producerNode(v);
    if (!p || !p->is("Identity") || p->inputs.empty()) return false;
    v = p->inputs[0];
  }
  return false;
}
const Node& at(const GraphIndex& idx, long i) { return idx.graph().nodes[static_cast<size_t>(i)]; }

void finish(const GraphIndex& idx, PatternMatch& m, std::string input) {
  m.input = std::move(input);
  m.output = at(idx, m.members.back()).outputs[0];
  std::string outputs[] = {m.output};
  auto more = groupBlockers(idx, m.members, outputs);
  m.blockers.insert(m.blockers.end(), more.begin(), more.end());
}

}  // namespace

long soleConsumer(const GraphIndex& idx, std::string_view value, std::string_view op) {
  auto uses = idx.consumers(value);
  if (uses.size() != 1 || idx.isGraphOutput(value)) return -1;
  const Node& n = at(idx, uses[0].node);
  if (!op.empty() && !n.is(op)) return -1;
  return static_cast<long>(uses[0].node);
}

std::vector<std::string> groupBlockers(const GraphIndex& idx, std::span<const size_t> members,
                                       std::span<const std::string> outputs) {
  auto inGroup = [&](size_t i) { return std::find(members.begin(), members.end(), i) != members.end(); };
  std::vector<std::string> blockers;
  for (size_t m : members)
    for (const auto& o : at(idx, m).outputs) {
      if (o.empty() || std::find(outputs.begin(), outputs.end(), o) != outputs.end()) continue;
      if (idx.isGraphOutput(o)) {
        blockers.push_back("graph_output:" + o);
        continue;
      }
      for (const Use& u : idx.consumers(o))
        if (!inGroup(u.node)) {
          blockers.push_back("multi_consumer:" + o);
          break;
        }
    }
  return blockers;
}

std::optional<double> constScalar(const GraphIndex& idx, std::string_view value) {
  const Tensor* t = idx.constant(value);
  return t ? t->scalar() : std::nullopt;
}

std::string otherOperand(const Node& n, std::string_view value) {
  if (n.inputs.size() != 2) return {};
  if (n.inputs[0] == value) return n.inputs[1];
  if (n.inputs[1] == value) return n.inputs[0];
  return {};
}

std::vector<int64_t> reduceAxes(const Node& n, const GraphIndex& idx, bool* known) {
  if (known) *known = true;
  if (const Attribute* a = n.attr("axes")) return a->ints;
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    if (const Tensor* t = idx.constant(n.inputs[1])) return t->toInt64();
    if (known) *known = false;
  }
  return {};
}

std::optional<PatternMatch> matchLayerNorm(const GraphIndex& idx, size_t rm) {
  const Node& r1 = at(idx, rm);
  if (!r1.is("ReduceMean") || r1.inputs.empty()) return std::nullopt;
  const std::string x = r1.inputs[0];
  // Sub(x, mean)
  long sub = -1;
  for (const Use& u : idx.consumers(r1.outputs[0])) {
    const Node& s = at(idx, u.node);
    if (s.is("Sub") && s.inputs.size() == 2 && s.inputs[0] == x && s.inputs[1] == r1.outputs[0]) sub = static_cast<long>(u.node);
  }
  if (sub < 0) return std::nullopt;
  const std::string d = at(idx, sub).outputs[0];
  // Square: Pow(d, 2) or Mul(d, d).
  long sq = -1;
  for (const Use& u : idx.consumers(d)) {
    const Node& s = at(idx, u.node);
    if ((s.is("Pow") && s.inputs[0] == d && near(constScalar(idx, s.input(1)), 2.0)) ||
        (s.is("Mul") && s.inputs.size() == 2 && s.inputs[0] == d && s.inputs[1] == d))
      sq = static_cast<long>(u.node);
  }
  if (sq < 0) return std::nullopt;
  long r2 = soleConsumer(idx, at(idx, sq).outputs[0], "ReduceMean");
  if (r2 < 0) return std::nullopt;
  long addEps = soleConsumer(idx, at(idx, r2).outputs[0], "Add");
  if (addEps < 0) return std::nullopt;
  const Node& ae = at(idx, addEps);
  if (!constScalar(idx, otherOperand(ae, at(idx, r2).outputs[0]))) return std::nullopt;
  long sqrt = soleConsumer(idx, ae.outputs[0], "Sqrt");
  if (sqrt < 0) return std::nullopt;
  const std::string s = at(idx, sqrt).outputs[0];
  PatternMatch m;
  m.members = {rm, static_cast<size_t>(sub), static_cast<size_t>(sq), static_cast<size_t>(r2),
               static_cast<size_t>(addEps), static_cast<size_t>(sqrt)};
  std::string normed;
  if (long div = soleConsumer(idx, s, "Div"); div >= 0 && at(idx, div).input(0) == d) {
    m.members.push_back(static_cast<size_t>(div));
    normed = at(idx, div).outputs[0];
  } else if (long rec = soleConsumer(idx, s, "Reciprocal"); rec >= 0) {
    long mul = soleConsumer(idx, at(idx, rec).outputs[0], "Mul");
    if (mul < 0 || otherOperand(at(idx, mul), at(idx, rec).outputs[0]) != d) return std::nullopt;
    m.members.push_back(static_cast<size_t>(rec));
    m.members.push_back(static_cast<size_t>(mul));
    normed = at(idx, mul).outputs[0];
  } else {
    return std::nullopt;
  }
  m.label = "LayerNorm";
  // Optional affine tail: Mul(γ) then Add(β), both constants.
  if (long g = soleConsumer(idx, normed, "Mul"); g >= 0 && idx.constant(otherOperand(at(idx, g), normed))) {
    m.members.push_back(static_cast<size_t>(g));
    normed = at(idx, g).outputs[0];
    if (long b = soleConsumer(idx, normed, "Add"); b >= 0 && idx.constant(otherOperand(at(idx, b), normed)))
      m.members.push_back(static_cast<size_t>(b));
  }
  // Both reductions must run over the same trailing axes for LayerNormalization to express it.
  bool known1 = true, known2 = true;
  auto axes1 = reduceAxes(r1, idx, &known1), axes2 = reduceAxes(at(idx, r2), idx, &known2);
  if (!known1 || !known2 || axes1 != axes2) m.blockers.push_back("attributes:ReduceMean axes differ");
  if (r1.attrInt("keepdims", 1) != 1 || at(idx, r2).attrInt("keepdims", 1) != 1)
    m.blockers.push_back("attributes:keepdims");
  const Shape* xs = idx.shape(x);
  if (!xs) {
    m.blockers.push_back("unknown_shape:" + x);
  } else if (!axes1.empty()) {
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
  finish(idx, m, x);
  return m;
}

std::optional<PatternMatch> matchSoftmax(const GraphIndex& idx, size_t node) {
  const Node& first = at(idx, node);
  size_t expIdx = node;
  std::vector<size_t> prefix;
  if (first.is("ReduceMax")) {
    long sub = consumerWithOp(idx, first.outputs[0], "Sub");
    if (sub < 0 || at(idx, sub).input(0) != first.input(0) || at(idx, sub).input(1) != first.outputs[0]) return std::nullopt;
    long e = soleConsumer(idx, at(idx, sub).outputs[0], "Exp");
    if (e < 0) return std::nullopt;
    prefix = {node, static_cast<size_t>(sub)};
    expIdx = static_cast<size_t>(e);
  } else if (!first.is("Exp")) {
    return std::nullopt;
  } else if (const Node* p = idx.producerNode(first.input(0)); p && p->is("Sub")) {
    if (const Node* mx = idx.producerNode(p->input(1)); mx && mx->is("ReduceMax") && mx->input(0) == p->input(0))
      return std::nullopt;  // anchored at the ReduceMax instead
  }
  const std::string e = at(idx, expIdx).outputs[0];
  long sum = consumerWithOp(idx, e, "ReduceSum");
  long div = consumerWithOp(idx, e, "Div");
  if (sum < 0 || div < 0) return std::nullopt;
  const Node& dv = at(idx, div);
  if (dv.input(0) != e || dv.input(1) != at(idx, sum).outputs[0]) return std::nullopt;
  PatternMatch m;
  m.members = prefix;
  m.members.insert(m.members.end(), {expIdx, static_cast<size_t>(sum), static_cast<size_t>(div)});
  m.label = prefix.empty() ? "Softmax" : "Softmax(stable)";
  finish(idx, m, first.inputs[0]);
  return m;
}

namespace {

// What a GELU written out in elementwise ops is made of.
bool geluMember(const Node& n) {
  return n.outputs.size() == 1 && (n.is("Add") || n.is("Sub") || n.is("Mul") || n.is("Div") || n.is("Pow") ||
                                   n.is("Tanh") || n.is("Erf"));
}

// The cone of elementwise ops from `x` that read only x, each other and one-element constants,
// holding one Erf or one Tanh, cut at its one exit below that function; a GELU when
// geluFunction() says so. Bounded to 16 ops.
std::optional<PatternMatch> geluCone(const GraphIndex& idx, const std::string& x) {
  std::vector<size_t> members;
  std::vector<std::string> values{x};
  auto inCone = [&](std::string_view v) { return std::find(values.begin(), values.end(), v) != values.end(); };
  for (size_t next = 0; next < values.size() && members.size() < 16; ++next)
    for (const Use& u : idx.consumers(values[next])) {
      const Node& n = at(idx, u.node);
      if (!geluMember(n) || std::find(members.begin(), members.end(), u.node) != members.end()) continue;
      const bool reads = std::all_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& in) {
        const Tensor* c = idx.constant(in);
        return inCone(in) || (c && c->numElements() == 1);
      });
      if (!reads) continue;
      members.push_back(u.node);
      values.push_back(n.outputs[0]);
    }
  long fn = -1;
  for (size_t m : members)
    if (at(idx, m).is("Tanh") || at(idx, m).is("Erf")) {
      if (fn >= 0) return std::nullopt;
      fn = static_cast<long>(m);
    }
  if (fn < 0) return std::nullopt;
  // Each exit (read outside, or a graph output) with the members it depends on; the largest
  // set that holds the function and keeps its intermediates inside is the GELU.
  std::optional<PatternMatch> best;
  for (size_t e : members) {
    const std::string& out = at(idx, e).outputs[0];
    const auto uses = idx.consumers(out);
    const bool exit = idx.isGraphOutput(out) || std::any_of(uses.begin(), uses.end(), [&](const Use& u) {
                        return std::find(members.begin(), members.end(), u.node) == members.end();
                      });
    if (!exit) continue;
    std::vector<size_t> deps{e};
    for (size_t k = 0; k < deps.size(); ++k)
      for (const auto& in : at(idx, deps[k]).inputs) {
        const long p = idx.producer(in);
        if (p >= 0 && std::find(members.begin(), members.end(), static_cast<size_t>(p)) != members.end() &&
            std::find(deps.begin(), deps.end(), static_cast<size_t>(p)) == deps.end())
          deps.push_back(static_cast<size_t>(p));
      }
    if (std::find(deps.begin(), deps.end(), static_cast<size_t>(fn)) == deps.end()) continue;
    std::sort(deps.begin(), deps.end());
    PatternMatch m;
    m.members = deps;
    m.label = at(idx, static_cast<size_t>(fn)).is("Tanh") ? "GELU(tanh)" : "GELU(erf)";
    m.input = x;
    m.output = out;
    std::string outputs[] = {out};
    m.blockers = groupBlockers(idx, m.members, outputs);
    if (!m.blockers.empty() || geluFunction(idx, m).empty()) continue;
    if (!best || m.members.size() > best->members.size()) best = std::move(m);
  }
  return best;
}

}  // namespace

std::optional<PatternMatch> matchGeluFrom(const GraphIndex& idx, const std::string& x) {
  // 0.5·x computed beside the chain, as some exporters write it.
  auto halfOfX = [&](std::string_view v) -> long {
    long p = idx.producer(v);
    if (p < 0) return -1;
    const Node& h = at(idx, p);
    return h.is("Mul") && near(constScalar(idx, otherOperand(h, x)), 0.5) ? p : -1;
  };
  for (const Use& u : idx.consumers(x)) {
    const Node& d = at(idx, u.node);
    // erf form: x/√2 (or x·1/√2) → Erf → +1 → ·x → ·0.5, the ·0.5 possibly applied to x first.
    bool scale = (d.is("Div") && d.input(0) == x && near(constScalar(idx, d.input(1)), std::sqrt(2.0))) ||
                 (d.is("Mul") && near(constScalar(idx, otherOperand(d, x)), 1.0 / std::sqrt(2.0)));
    if (scale) {
      long erf = soleConsumer(idx, d.outputs[0], "Erf");
      if (erf < 0) continue;
      long add = soleConsumer(idx, at(idx, erf).outputs[0], "Add");
      if (add < 0) continue;
      const Node& a = at(idx, add);
      if (!near(constScalar(idx, otherOperand(a, at(idx, erf).outputs[0])), 1.0)) continue;
      long m1 = soleConsumer(idx, a.outputs[0], "Mul");
      if (m1 < 0) continue;
      const Node& mul1 = at(idx, m1);
      std::string other = otherOperand(mul1, a.outputs[0]);
      PatternMatch m;
      m.label = "GELU(erf)";
      m.members = {u.node, static_cast<size_t>(erf), static_cast<size_t>(add)};
      if (other == x) {  // (x·(1+erf))·0.5
        long m2 = soleConsumer(idx, mul1.outputs[0], "Mul");
        if (m2 < 0 || !near(constScalar(idx, otherOperand(at(idx, m2), mul1.outputs[0])), 0.5)) continue;
        m.members.push_back(static_cast<size_t>(m1));
        m.members.push_back(static_cast<size_t>(m2));
      } else if (long h = halfOfX(other); h >= 0) {  // (0.5·x)·(1+erf)
        m.members.insert(m.members.begin(), static_cast<size_t>(h));
        m.members.push_back(static_cast<size_t>(m1));
      } else if (near(constScalar(idx, other), 0.5)) {  // x·((1+erf)·0.5)
        long m2 = soleConsumer(idx, mul1.outputs[0], "Mul");
        if (m2 < 0 || otherOperand(at(idx, m2), mul1.outputs[0]) != x) continue;
        m.members.push_back(static_cast<size_t>(m1));
        m.members.push_back(static_cast<size_t>(m2));
      } else {
        continue;
      }
      finish(idx, m, x);
      return m;
    }
    // tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
    if (d.is("Pow") && d.input(0) == x && near(constScalar(idx, d.input(1)), 3.0)) {
      std::vector<size_t> members{u.node};
      std::string v = d.outputs[0];
      bool sawTanh = false;
      for (int step = 0; step < 8; ++step) {
        long next = soleConsumer(idx, v);
        if (next < 0) break;
        const Node& nn = at(idx, next);
        if (!nn.is("Mul") && !nn.is("Add") && !nn.is("Tanh")) break;
        members.push_back(static_cast<size_t>(next));
        sawTanh |= nn.is("Tanh");
        std::string other = otherOperand(nn, v);
        v = nn.outputs[0];
        // Done once the product with x (or 0.5·x) has been taken after the tanh.
        if (!sawTanh || !nn.is("Mul")) continue;
        long h = other == x ? -1 : halfOfX(other);
        if (other != x && h < 0) continue;
        if (h >= 0) {
          members.insert(members.begin(), static_cast<size_t>(h));
        } else if (long half = soleConsumer(idx, v, "Mul");
                   half >= 0 && near(constScalar(idx, otherOperand(at(idx, half), v)), 0.5)) {
          members.push_back(static_cast<size_t>(half));
        }
        PatternMatch m;
        m.label = "GELU(tanh)";
        m.members = members;
        finish(idx, m, x);
        return m;
      }
    }
  }
  return geluCone(idx, x);
}

std::string geluFunction(const GraphIndex& idx, const PatternMatch& m) {
  auto erf = [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); };
  auto tanh = [](double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); };
  bool isErf = true, isTanh = true;
  for (double x : {-6.0, -3.0, -1.5, -0.7, -0.1, 0.0, 0.2, 0.9, 1.6, 3.3, 7.0}) {
    auto v = evaluateScalarChain(idx, m.members, m.input, m.output, x);
    if (!v) return {};
    auto close = [&](double ref) { return std::fabs(*v - ref) <= 1e-6 * std::max(1.0, std::fabs(ref)); };
    isErf &= close(erf(x));
    isTanh &= close(tanh(x));
  }
  return isErf ? "erf" : isTanh ? "tanh" : "";
}

std::optional<PatternMatch> matchGeluAt(const GraphIndex& idx, size_t node) {
  const Node& n = at(idx, node);
  for (const auto& in : n.inputs) {
    if (in.empty()) continue;
    auto m = matchGeluFrom(idx, in);
    if (m && m->members.front() == node) return m;
  }
  return std::nullopt;
}

std::vector<std::optional<PatternMatch>> matchGeluAll(const GraphIndex& idx) {
  const std::vector<Node>& nodes = idx.graph().nodes;
  std::vector<std::optional<PatternMatch>> out(nodes.size());
  // Every form reaches its Erf or Tanh from its input through a few elementwise nodes (geluCone
  // follows at most 16): only the inputs of such nodes upstream of one can start a GELU. Trying
  // every value took a quarter of a 50,000-node encoder's analysis (three calls).
  std::unordered_set<std::string_view> starts;
  std::vector<size_t> level, next;
  std::unordered_set<size_t> seen;
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (!nodes[j].is("Erf") && !nodes[j].is("Tanh")) continue;
    level.assign(1, j);
    seen.clear();
    for (int depth = 0; depth < 24 && !level.empty(); ++depth) {
      next.clear();
      for (size_t k : level)
        for (const auto& in : nodes[k].inputs) {
          if (in.empty()) continue;
          starts.insert(in);
          const long p = idx.producer(in);
          if (p >= 0 && geluMember(nodes[static_cast<size_t>(p)]) && seen.insert(static_cast<size_t>(p)).second)
            next.push_back(static_cast<size_t>(p));
        }
      level.swap(next);
    }
  }
  if (starts.empty()) return out;
  std::unordered_map<std::string_view, std::optional<PatternMatch>> from;  // per input value
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& in : nodes[i].inputs) {
      if (in.empty() || !starts.count(in)) continue;
      auto it = from.find(in);
      if (it == from.end()) it = from.emplace(in, matchGeluFrom(idx, in)).first;
      if (it->second && it->second->members.front() == i) {
        out[i] = it->second;
        break;
      }
    }
  return out;
}

std::optional<PatternMatch> matchSilu(const GraphIndex& idx, size_t sigmoid) {
  const Node& sg = at(idx, sigmoid);
  if (!sg.is("Sigmoid") || sg.inputs.empty() || sg.outputs.empty()) return std::nullopt;
  const std::string& x = sg.inputs[0];
  long mul = soleConsumer(idx, sg.outputs[0], "Mul");
  if (mul < 0 || otherOperand(at(idx, mul), sg.outputs[0]) != x) return std::nullopt;
  PatternMatch m;
  m.members = {sigmoid, static_cast<size_t>(mul)};
  m.label = "SiLU";
  finish(idx, m, x);
  return m;
}

std::optional<PatternMatch> matchSwiGlu(const GraphIndex& idx, size_t sigmoid) {
  auto silu = matchSilu(idx, sigmoid);
  if (!silu) return std::nullopt;
  const std::string& act = silu->output;
  long gate = soleConsumer(idx, act, "Mul");
  if (gate < 0) return std::nullopt;
  const std::string up = otherOperand(at(idx, gate), act);
  const Node* gp = idx.producerNode(silu->input);
  const Node* up_ = idx.producerNode(up);
  auto projection = [](const Node* n) { return n && (n->is("MatMul") || n->is("Gemm")) && !n->inputs.empty(); };
  if (!projection(gp) || !projection(up_) || gp == up_ || gp->inputs[0] != up_->inputs[0]) return std::nullopt;
  PatternMatch m;
  m.members = {sigmoid, silu->members[1], static_cast<size_t>(gate)};
  m.label = "SwiGLU";
  finish(idx, m, silu->input);
  return m;
}

std::optional<PatternMatch> matchRmsNorm(const GraphIndex& idx, size_t square) {
  const Node& sq = at(idx, square);
  std::string x;
  if (sq.is("Pow") && near(constScalar(idx, sq.input(1)), 2.0)) x = sq.input(0);
  else if (sq.is("Mul") && sq.inputs.size() == 2 && sq.inputs[0] == sq.inputs[1]) x = sq.inputs[0];
  if (x.empty()) return std::nullopt;
  // x − mean(x) squared is LayerNorm's variance, not a root mean square.
  if (const Node* p = idx.producerNode(x); p && p->is("Sub"))
    if (const Node* mean = idx.producerNode(p->input(1)); mean && mean->is("ReduceMean") && mean->input(0) == p->input(0))
      return std::nullopt;
  long rm = soleConsumer(idx, sq.outputs[0], "ReduceMean");
  if (rm < 0) return std::nullopt;
  long add = soleConsumer(idx, at(idx, rm).outputs[0], "Add");
  if (add < 0 || !constScalar(idx, otherOperand(at(idx, add), at(idx, rm).outputs[0]))) return std::nullopt;
  long sqrt = soleConsumer(idx, at(idx, add).outputs[0], "Sqrt");
  if (sqrt < 0) return std::nullopt;
  const std::string& root = at(idx, sqrt).outputs[0];
  PatternMatch m;
  m.members = {square, static_cast<size_t>(rm), static_cast<size_t>(add), static_cast<size_t>(sqrt)};
  std::string normed;
  if (long div = soleConsumer(idx, root, "Div"); div >= 0 && at(idx, div).input(1) == root) {
    const Node& d = at(idx, div);
    m.members.push_back(static_cast<size_t>(div));
    if (d.input(0) == x) {
      normed = d.outputs[0];  // x / rms
    } else if (near(constScalar(idx, d.input(0)), 1.0)) {  // 1 / rms, then · x
      long mul = soleConsumer(idx, d.outputs[0], "Mul");
      if (mul < 0 || otherOperand(at(idx, mul), d.outputs[0]) != x) return std::nullopt;
      m.members.push_back(static_cast<size_t>(mul));
      normed = at(idx, mul).outputs[0];
    } else {
      return std::nullopt;
    }
  } else if (long rec = soleConsumer(idx, root, "Reciprocal"); rec >= 0) {
    long mul = soleConsumer(idx, at(idx, rec).outputs[0], "Mul");
    if (mul < 0 || otherOperand(at(idx, mul), at(idx, rec).outputs[0]) != x) return std::nullopt;
    m.members.insert(m.members.end(), {static_cast<size_t>(rec), static_cast<size_t>(mul)});
    normed = at(idx, mul).outputs[0];
  } else {
    return std::nullopt;
  }
  // The learned scale γ, when it follows.
  if (long g = soleConsumer(idx, normed, "Mul"); g >= 0 && constantThroughIdentity(idx, otherOperand(at(idx, g), normed)))
    m.members.push_back(static_cast<size_t>(g));
  m.label = "RMSNorm";
  finish(idx, m, x);
  return m;
}

std::optional<PatternMatch> matchRotary(const GraphIndex& idx, size_t concat) {
  const Node& c = at(idx, concat);
  if (!c.is("Concat") || c.inputs.size() != 2 || c.outputs.empty()) return std::nullopt;
  const Node* neg = idx.producerNode(c.inputs[0]);
  if (!neg || !neg->is("Neg")) return std::nullopt;
  const Node* second = idx.producerNode(neg->input(0));
  const Node* first = idx.producerNode(c.inputs[1]);
  if (!second || !first) return std::nullopt;
  // The halves: two Slices of one value, or the two outputs of one Split, in swapped order.
  std::string x;
  std::vector<size_t> halves;
  const long negIdx = idx.producer(c.inputs[0]);
  if (first->is("Slice") && second->is("Slice") && first != second && first->input(0) == second->input(0)) {
    x = first->input(0);
    halves = {static_cast<size_t>(idx.producer(c.inputs[1])), static_cast<size_t>(idx.producer(neg->input(0)))};
  } else if (first == second && first->is("Split") && first->outputs.size() == 2 && first->outputs[0] == c.inputs[1] &&
             first->outputs[1] == neg->input(0)) {
    x = first->input(0);
    halves = {static_cast<size_t>(idx.producer(c.inputs[1]))};
  } else {
    return std::nullopt;
  }
  long sinMul = soleConsumer(idx, c.outputs[0], "Mul");
  if (sinMul < 0) return std::nullopt;
  long add = soleConsumer(idx, at(idx, sinMul).outputs[0], "Add");
  if (add < 0) return std::nullopt;
  const long cosMul = idx.producer(otherOperand(at(idx, add), at(idx, sinMul).outputs[0]));
  if (cosMul < 0 || !at(idx, cosMul).is("Mul") || otherOperand(at(idx, cosMul), x).empty()) return std::nullopt;
  PatternMatch m;
  m.members.push_back(static_cast<size_t>(cosMul));
  m.members.insert(m.members.end(), halves.begin(), halves.end());
  m.members.insert(m.members.end(), {static_cast<size_t>(negIdx), concat, static_cast<size_t>(sinMul), static_cast<size_t>(add)});
  m.label = "rotary";
  finish(idx, m, x);
  return m;
}

std::optional<PatternMatch> matchAttention(const GraphIndex& idx, size_t softmax) {
  const Node& sm = at(idx, softmax);
  if (!sm.is("Softmax") || sm.inputs.empty() || sm.outputs.empty()) return std::nullopt;
  long pv = soleConsumer(idx, sm.outputs[0], "MatMul");
  if (pv < 0 || at(idx, pv).input(0) != sm.outputs[0]) return std::nullopt;
  // Does `x` come from a MatMul through at most `depth` scale/mask steps?
  std::function<bool(std::string_view, int)> fromMatMul = [&](std::string_view x, int depth) {
    const Node* a = idx.producerNode(x);
    if (!a) return false;
    if (a->is("MatMul")) return true;
    if (depth == 0 || !(a->is("Mul") || a->is("Div") || a->is("Add") || a->is("Sub") || a->is("Where"))) return false;
    return std::any_of(a->inputs.begin(), a->inputs.end(), [&](const std::string& in) { return fromMatMul(in, depth - 1); });
  };
  // Walking back from the Softmax through the scale and the mask (Mul/Div by a constant, Add or
  // Mul of a mask, Where(mask, −inf, ·)) to Q·Kᵀ: each step follows the operand that comes from
  // the MatMul.
  std::vector<size_t> before;
  std::string v = sm.inputs[0];
  for (int step = 0; step < 5; ++step) {
    const long p = idx.producer(v);
    if (p < 0) return std::nullopt;
    const Node& n = at(idx, p);
    before.push_back(static_cast<size_t>(p));
    if (n.is("MatMul")) break;
    if (!(n.is("Mul") || n.is("Div") || n.is("Add") || n.is("Sub") || n.is("Where"))) return std::nullopt;
    std::string next;
    for (const std::string& in : n.inputs)
      if (!in.empty() && fromMatMul(in, 3 - std::min(step, 3))) {
        next = in;
        break;
      }
    if (next.empty() || (n.is("Div") && next != n.inputs[0])) return std::nullopt;
    v = next;
  }
  if (before.empty() || !at(idx, before.back()).is("MatMul")) return std::nullopt;
  PatternMatch m;
  m.members.assign(before.rbegin(), before.rend());
  m.members.insert(m.members.end(), {softmax, static_cast<size_t>(pv)});
  m.label = "attention";
  finish(idx, m, std::string(at(idx, before.back()).input(0)));
  return m;
}

std::optional<ResidualAdd> matchResidualAdd(const GraphIndex& idx, const std::string& value) {
  const long a = idx.producer(value);
  if (a < 0) return std::nullopt;
  const Node& add = at(idx, a);
  if (!add.is("Add") || add.inputs.size() != 2 || idx.dtype(value) != DType::Float) return std::nullopt;
  const Shape* s = idx.shape(value);
  if (!s || !s->fullyKnown() || (s->rank() != 2 && s->rank() != 3)) return std::nullopt;
  for (const auto& in : add.inputs) {
    const Shape* o = idx.shape(in);
    if (!o || !(*o == *s)) return std::nullopt;
  }
  const int64_t hidden = s->dims.back().value;
  ResidualAdd r{static_cast<size_t>(a), -1, add.inputs[0], add.inputs[1], {}};
  for (int side = 0; side < 2; ++side) {
    std::string& operand = side == 0 ? r.input : r.skip;
    const long b = soleConsumer(idx, operand) >= 0 ? idx.producer(operand) : -1;
    if (b < 0 || !at(idx, b).is("Add") || at(idx, b).inputs.size() != 2) continue;
    const Node& ba = at(idx, b);
    for (size_t k = 0; k < 2; ++k) {
      const Tensor* c = idx.constant(ba.inputs[k]);
      const Shape* t = idx.shape(ba.inputs[1 - k]);
      if (c && c->dtype == DType::Float && c->dims == std::vector<int64_t>{hidden} && t && *t == *s) {
        r.biasAdd = b;
        r.bias = ba.inputs[k];
        operand = ba.inputs[1 - k];
        return r;
      }
    }
  }
  return r;
}

namespace {

bool floatVector(const GraphIndex& idx, std::string_view v, int64_t n) {
  const Shape* s = idx.shape(v);
  return s && s->rank() == 1 && s->dims[0].value == n && idx.dtype(v) == DType::Float;
}

}  // namespace

std::optional<SkipNormMatch> matchSkipNorm(const GraphIndex& idx, size_t node) {
  const Node& n = at(idx, node);
  SkipNormMatch r;
  std::vector<size_t> norm{node};
  std::string x, output;
  if (n.is("LayerNormalization") || n.is("SimplifiedLayerNormalization")) {
    r.rms = n.is("SimplifiedLayerNormalization");
    if (n.inputs.size() < 2 || n.outputs.empty()) return std::nullopt;
    for (size_t k = 1; k < n.outputs.size(); ++k)  // mean / inverse std: the kernel's differ in shape
      if (!n.outputs[k].empty() && (idx.consumerCount(n.outputs[k]) > 0 || idx.isGraphOutput(n.outputs[k]))) return std::nullopt;
    x = n.inputs[0];
    output = n.outputs[0];
    r.gamma = n.inputs[1];
    if (!r.rms && n.inputs.size() > 2) r.beta = n.inputs[2];
    r.epsilon = n.attrFloat("epsilon", 1e-5f);
    const Shape* s = idx.shape(x);
    if (!s || !s->fullyKnown()) return std::nullopt;
    if (int64_t axis = n.attrInt("axis", -1); axis != -1 && axis != static_cast<int64_t>(s->rank()) - 1) return std::nullopt;
  } else {
    auto m = matchRmsNorm(idx, node);
    if (!m || !m->blockers.empty()) return std::nullopt;
    r.rms = true;
    x = m->input;
    output = m->output;
    norm = m->members;
    const Shape* s = idx.shape(x);
    if (!s || !s->fullyKnown()) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(s->rank());
    // Exactly x² (Pow by 2, not near it), the mean over the last axis kept, a constant ε.
    const Node& sq = at(idx, norm[0]);
    if (sq.is("Pow") && constScalar(idx, sq.input(1)) != 2.0) return std::nullopt;
    const Node& mean = at(idx, norm[1]);
    bool known = false;
    auto axes = reduceAxes(mean, idx, &known);
    if (!known || axes.size() != 1 || (axes[0] != -1 && axes[0] != rank - 1) || mean.attrInt("keepdims", 1) != 1)
      return std::nullopt;
    auto eps = constScalar(idx, otherOperand(at(idx, norm[2]), mean.outputs[0]));
    if (!eps || *eps < 0) return std::nullopt;
    r.epsilon = static_cast<float>(*eps);
    // γ: the last member multiplies the normalized value by something other than x.
    const Node& last = at(idx, norm.back());
    const Node& prev = at(idx, norm[norm.size() - 2]);
    if (last.is("Mul")) {
      const std::string other = otherOperand(last, prev.outputs[0]);
      if (!other.empty() && other != x) r.gamma = other;
    }
  }
  const Shape* s = idx.shape(x);
  const int64_t hidden = r.hidden = s->dims.back().value;
  if (!r.gamma.empty() && !floatVector(idx, r.gamma, hidden)) return std::nullopt;
  if (!r.beta.empty() && !floatVector(idx, r.beta, hidden)) return std::nullopt;
  auto res = matchResidualAdd(idx, x);
  if (!res) return std::nullopt;
  r.residual = *res;
  r.match.members = norm;
  r.match.members.push_back(res->add);
  if (res->biasAdd >= 0) r.match.members.push_back(static_cast<size_t>(res->biasAdd));
  std::sort(r.match.members.begin(), r.match.members.end());
  r.match.label = r.rms ? "RMSNorm" : "LayerNorm";
  r.match.input = x;
  r.match.output = output;
  std::string outputs[] = {output, x};
  r.match.blockers = groupBlockers(idx, r.match.members, outputs);
  r.sumRead = idx.isGraphOutput(x);
  for (const Use& u : idx.consumers(x))
    r.sumRead |= !std::binary_search(r.match.members.begin(), r.match.members.end(), u.node);
  return r;
}

std::optional<RotaryForm> rotaryForm(const GraphIndex& idx, const PatternMatch& m) {
  const Shape* xs = idx.shape(m.input);
  if (m.members.size() < 6 || !xs || !xs->fullyKnown() || xs->rank() != 4 || idx.dtype(m.input) != DType::Float)
    return std::nullopt;
  const auto dims = xs->values();
  const int64_t S = dims[2], D = dims[3];
  if (D % 2 != 0) return std::nullopt;
  // The halves: exactly [0, D/2) and [D/2, D) of the last axis (the Concat is (−second, first)).
  const Node& concat = at(idx, m.members[m.members.size() - 3]);
  if (int64_t a = concat.attrInt("axis", 0); a != -1 && a != 3) return std::nullopt;
  KnownOperands known(idx);
  auto iota = iotaMap(dims, size_t(1) << 24);
  if (!iota) return std::nullopt;
  for (int half = 0; half < 2; ++half) {
    const Node* neg = idx.producerNode(concat.inputs[0]);
    const std::string& v = half == 0 ? concat.inputs[1] : neg->inputs[0];
    const Node* p = idx.producerNode(v);
    if (!p || p->inputs.empty() || p->inputs[0] != m.input) return std::nullopt;
    const size_t out = static_cast<size_t>(std::find(p->outputs.begin(), p->outputs.end(), v) - p->outputs.begin());
    auto map = applyMovement(*p, out, *iota, known);
    if (!map || static_cast<int64_t>(map->from.size()) != dims[0] * dims[1] * S * D / 2) return std::nullopt;
    size_t e = 0;
    for (int64_t row = 0; row < dims[0] * dims[1] * S; ++row)
      for (int64_t k = 0; k < D / 2; ++k, ++e)
        if (map->from[e] != row * D + half * D / 2 + k) return std::nullopt;
  }
  // x·cos (cos the other operand of the first member) and Concat·sin: constant tables whose halves agree.
  RotaryForm f{m.input, otherOperand(at(idx, m.members.front()), m.input),
               otherOperand(at(idx, m.members[m.members.size() - 2]), concat.outputs[0]), S, D};
  for (const std::string* table : {&f.cos, &f.sin}) {
    const Tensor* t = idx.constant(*table);
    if (!t || t->dtype != DType::Float || t->dims.size() < 2 || t->dims[t->dims.size() - 2] != S || t->dims.back() != D)
      return std::nullopt;
    for (size_t i = 0; i + 2 < t->dims.size(); ++i)
      if (t->dims[i] != 1) return std::nullopt;
    std::string_view raw = t->raw();
    if (static_cast<int64_t>(raw.size()) != S * D * 4) return std::nullopt;
    for (int64_t s = 0; s < S; ++s) {
      const char* row = raw.data() + s * D * 4;
      if (std::memcmp(row, row + D / 2 * 4, static_cast<size_t>(D / 2 * 4)) != 0) return std::nullopt;
    }
  }
  return f;
}

std::vector<std::pair<const char*, PatternMatch>> namedPatternsAt(const GraphIndex& idx, size_t node) {
  std::vector<std::pair<const char*, PatternMatch>> out;
  const Node& n = at(idx, node);
  if (n.is("Softmax")) {
    if (auto m = matchAttention(idx, node)) out.emplace_back("fusion.attention", std::move(*m));
  } else if (n.is("Concat")) {
    if (auto m = matchRotary(idx, node)) out.emplace_back("fusion.rotary", std::move(*m));
  } else if (n.is("Sigmoid")) {
    if (auto m = matchSwiGlu(idx, node)) out.emplace_back("fusion.swiglu", std::move(*m));
    else if (auto s = matchSilu(idx, node)) out.emplace_back("fusion.silu", std::move(*s));
  } else if (n.is("Pow") || n.is("Mul")) {
    if (auto m = matchRmsNorm(idx, node)) out.emplace_back("fusion.rmsnorm", std::move(*m));
  }
  return out;
}

std::optional<double> evaluateScalarChain(const GraphIndex& idx, std::span<const size_t> members,
                                          const std::string& input, const std::string& output, double x) {
  std::map<std::string, double, std::less<>> v{{input, x}};
  auto operand = [&](std::string_view name) -> std::optional<double> {
    if (auto it = v.find(name); it != v.end()) return it->second;
    for (size_t m : members)  // produced inside but not evaluated yet
      for (const auto& o : at(idx, m).outputs)
        if (o == name) return std::nullopt;
    const Tensor* t = idx.constant(name);
    return t && t->numElements() == 1 ? t->scalar() : std::nullopt;
  };
  std::vector<bool> done(members.size(), false);
  for (size_t round = 0; round < members.size(); ++round) {
    bool progress = false;
    for (size_t k = 0; k < members.size(); ++k) {
      if (done[k]) continue;
      const Node& n = at(idx, members[k]);
      if (n.outputs.size() != 1 || !n.isDefaultDomain()) return std::nullopt;
      std::vector<double> in;
      bool ready = true;
      for (const auto& name : n.inputs) {
        auto val = operand(name);
        if (!val) {
          ready = false;
          break;
        }
        in.push_back(*val);
      }
      if (!ready) continue;
      double r;
      const std::string& op = n.opType;
      if (in.size() == 2 && op == "Add") r = in[0] + in[1];
      else if (in.size() == 2 && op == "Sub") r = in[0] - in[1];
      else if (in.size() == 2 && op == "Mul") r = in[0] * in[1];
      else if (in.size() == 2 && op == "Div") r = in[0] / in[1];
      else if (in.size() == 2 && op == "Pow") r = std::pow(in[0], in[1]);
      else if (in.size() == 1 && op == "Erf") r = std::erf(in[0]);
      else if (in.size() == 1 && op == "Tanh") r = std::tanh(in[0]);
      else if (in.size() == 1 && op == "Sqrt") r = std::sqrt(in[0]);
      else if (in.size() == 1 && op == "Neg") r = -in[0];
      else if (in.size() == 1 && op == "Reciprocal") r = 1.0 / in[0];
      else if (in.size() == 1 && op == "Exp") r = std::exp(in[0]);
      else if (in.size() == 1 && op == "Sigmoid") r = 1.0 / (1.0 + std::exp(-in[0]));
      else return std::nullopt;
      v[n.outputs[0]] = r;
      done[k] = true;
      progress = true;
    }
    if (!progress) break;
  }
  if (std::find(done.begin(), done.end(), false) != done.end()) return std::nullopt;
  auto it = v.find(output);
  return it == v.end() ? std::nullopt : std::optional<double>(it->second);
}

std::vector<int64_t> permutationOf(const GraphIndex& idx, const Node& t) {
  auto perm = t.attrInts("perm");
  if (!perm.empty()) return perm;
  const Shape* s = idx.shape(t.input(0));
  if (!s) return {};
  for (int64_t i = static_cast<int64_t>(s->rank()) - 1; i >= 0; --i) perm.push_back(i);
  return perm;
}

namespace {

// One Slice's [start, end) along its single axis, with step 1, clamped to the dim; false if not that.
bool sliceRange(const GraphIndex& idx, const Node& s, int64_t rank, int64_t dim, int64_t& axis, int64_t& b, int64_t& e) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (s.attr("starts")) {  // before opset 10
    starts = s.attrInts("starts");
    ends = s.attrInts("ends");
    axes = s.attrInts("axes");
  } else {
    auto get = [&](size_t k, std::vector<int64_t>& out) {
      if (k >= s.inputs.size() || s.inputs[k].empty()) return true;
      const Tensor* t = idx.constant(s.inputs[k]);
      if (!t) return false;
      out = t->toInt64();
      return true;
    };
    if (!get(1, starts) || !get(2, ends) || !get(3, axes) || !get(4, steps)) return false;
  }
  if (starts.size() != 1 || ends.size() != 1) return false;
  if (!steps.empty() && (steps.size() != 1 || steps[0] != 1)) return false;
  axis = axes.empty() ? 0 : axes[0];
  if (axis < 0) axis += rank;
  auto clamp = [&](int64_t v) {
    if (v < 0) v += dim;
    return std::clamp<int64_t>(v, 0, dim);
  };
  b = clamp(starts[0]);
  e = clamp(ends[0]);
  return true;
}

}  // namespace

std::optional<std::string> concatRebuiltSource(const GraphIndex& idx, const Node& concat) {
  if (!concat.is("Concat") || concat.inputs.empty()) return std::nullopt;
  const Node* first = idx.producerNode(concat.inputs[0]);
  if (!first || first->inputs.empty()) return std::nullopt;
  const std::string source = first->inputs[0];
  const Shape* src = idx.shape(source);
  const int64_t rank = src ? static_cast<int64_t>(src->rank()) : -1;
  int64_t axis = concat.attrInt("axis", 0);
  if (first->is("Split")) {
    // Every output of one Split, in order, along the same axis.
    int64_t splitAxis = first->attrInt("axis", 0);
    if (first->outputs != concat.inputs) return std::nullopt;
    if (splitAxis != axis && (rank <= 0 || (splitAxis + rank) % rank != (axis + rank) % rank)) return std::nullopt;
    return source;
  }
  if (axis < 0 && rank > 0) axis += rank;
  if (!src || axis < 0 || axis >= rank || !src->dims[static_cast<size_t>(axis)].known()) return std::nullopt;
  const int64_t dim = src->dims[static_cast<size_t>(axis)].value;
  int64_t next = 0;
  for (const auto& in : concat.inputs) {
    const Node* s = idx.producerNode(in);
    int64_t a = 0, b = 0, e = 0;
    if (!s || !s->is("Slice") || s->inputs.empty() || s->inputs[0] != source) return std::nullopt;
    if (!sliceRange(idx, *s, rank, dim, a, b, e) || a != axis || b != next || e <= b) return std::nullopt;
    next = e;
  }
  if (next != dim) return std::nullopt;
  return source;
}

bool isIdentitySplitConcat(const GraphIndex& idx, const Node& concat, const std::vector<size_t>&) {
  return concatRebuiltSource(idx, concat).has_value();
}

}  // namespace msa
