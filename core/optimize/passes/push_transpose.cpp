// Pushes a Transpose down through a chain of elementwise ops to the Transpose that follows it:
//   T_P(x) → E1 → … → En → T_Q   becomes   x → E1' → … → En' (→ T_R, R = P∘Q)
// where each Ei' reads its constant operands permuted by P⁻¹ (scalars stay as they are) and its
// other operands untransposed. Inverse pairs (R = identity) vanish, other pairs merge into one
// Transpose. Exact: only data movement and constant layout change.
#include <optional>
#include <tuple>

#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

const std::vector<std::string_view> kElementwise{
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Sum", "Mean", "PRelu", "Where",
    "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "BitShift",
    "Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu", "Selu", "Celu",
    "Softplus", "Softsign", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Erf", "Clip",
    "Ceil", "Floor", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
    "Asinh", "Acosh", "Atanh", "Not", "Cast", "Mish", "Gelu", "IsNaN", "IsInf", "ThresholdedRelu", "Shrink"};

std::vector<int64_t> inverse(const std::vector<int64_t>& p) {
  std::vector<int64_t> inv(p.size());
  for (size_t k = 0; k < p.size(); ++k) inv[static_cast<size_t>(p[k])] = static_cast<int64_t>(k);
  return inv;
}

bool isPermutation(const std::vector<int64_t>& p) {
  std::vector<bool> seen(p.size(), false);
  for (int64_t a : p) {
    if (a < 0 || a >= static_cast<int64_t>(p.size()) || seen[static_cast<size_t>(a)]) return false;
    seen[static_cast<size_t>(a)] = true;
  }
  return true;
}

bool isIdentity(const std::vector<int64_t>& p) {
  for (size_t k = 0; k < p.size(); ++k)
    if (p[k] != static_cast<int64_t>(k)) return false;
  return true;
}

// How one operand of a chain node is rewritten.
struct Operand {
  enum class Kind { Chain, Keep, Constant, Untransposed } kind = Kind::Keep;
  std::string replacement;  // Untransposed: the input of the matching Transpose
};

struct Plan {
  size_t t1 = 0, t2 = 0;
  std::vector<size_t> chain;
  std::vector<std::vector<Operand>> operands;
  std::vector<int64_t> p, r;
};

class PushTranspose final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      const auto reads = subgraphReads(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        auto plan = match(idx, reads, i);
        if (!plan) continue;
        std::vector<size_t> members{plan->t1};
        members.insert(members.end(), plan->chain.begin(), plan->chain.end());
        members.push_back(plan->t2);
        if (!anyAnchored(ctx, g, members)) continue;
        Rewrite r{std::string(m_info.id), {}, nodeNames(g, members), {}, false, {}};
        apply(g, idx, *plan, r);
        return r;
      }
      return std::nullopt;
    });
  }

 private:
  static std::optional<Plan> match(const GraphIndex& idx, const std::unordered_set<std::string>& reads, size_t t1) {
    const Graph& g = idx.graph();
    const Node& t = g.nodes[t1];
    if (!t.is("Transpose") || t.outputs.size() != 1) return std::nullopt;
    Plan plan;
    plan.t1 = t1;
    plan.p = transposePerm(t, idx);
    if (plan.p.empty() || !isPermutation(plan.p)) return std::nullopt;
    const size_t rank = plan.p.size();
    std::string v = t.outputs[0];
    for (;;) {
      if (idx.isGraphOutput(v)) return std::nullopt;
      auto uses = idx.consumers(v);
      if (uses.empty()) return std::nullopt;
      const size_t next = uses[0].node;
      for (const Use& u : uses)
        if (u.node != next) return std::nullopt;  // the chain must not branch
      const Node& n = g.nodes[next];
      if (n.is("Transpose")) {
        if (plan.chain.empty()) return std::nullopt;  // a bare pair: cancel_transposes does it
        auto q = transposePerm(n, idx);
        if (q.size() != rank || !isPermutation(q)) return std::nullopt;
        plan.t2 = next;
        plan.r.resize(rank);
        for (size_t k = 0; k < rank; ++k) plan.r[k] = plan.p[static_cast<size_t>(q[k])];
        return plan;
      }
      if (!isOneOf(n, kElementwise) || n.outputs.size() != 1) return std::nullopt;
      std::vector<Operand> ops;
      for (const auto& in : n.inputs) {
        Operand op;
        if (in.empty()) {
          op.kind = Operand::Kind::Keep;
        } else if (in == v) {
          op.kind = Operand::Kind::Chain;
        } else if (const Tensor* c = idx.constant(in)) {
          if (c->dims.size() > rank || !c->hasData()) return std::nullopt;
          op.kind = c->numElements() == 1 ? Operand::Kind::Keep : Operand::Kind::Constant;
          // A permuted copy of a constant another node reads too would duplicate it.
          if (op.kind == Operand::Kind::Constant && !exclusiveUse(idx, reads, in)) return std::nullopt;
        } else if (const Node* pt = idx.producerNode(in); pt && pt->is("Transpose") && transposePerm(*pt, idx) == plan.p) {
          op.kind = Operand::Kind::Untransposed;
          op.replacement = pt->inputs[0];
        } else if (const Shape* s = idx.shape(in); s && s->rank() <= rank && s->numElements() == 1) {
          op.kind = Operand::Kind::Keep;  // one element: the same in every layout
        } else {
          return std::nullopt;
        }
        ops.push_back(std::move(op));
      }
      plan.chain.push_back(next);
      plan.operands.push_back(std::move(ops));
      v = n.outputs[0];
    }
  }

  void apply(Graph& g, const GraphIndex& idx, const Plan& plan, Rewrite& r) const {
    const auto pinv = inverse(plan.p);
    const size_t rank = plan.p.size();
    const NodeId t1 = g.nodes[plan.t1].id, t2 = g.nodes[plan.t2].id;
    const std::string source = g.nodes[plan.t1].inputs[0];
    const std::string t2out = g.nodes[plan.t2].outputs[0];
    std::vector<NodeId> chain;
    for (size_t c : plan.chain) chain.push_back(g.nodes[c].id);
    // Copy what the index points at before adding initializers (which moves them).
    std::vector<std::vector<std::string>> newInputs;
    std::vector<std::tuple<size_t, size_t, Tensor>> constants;
    for (size_t k = 0; k < plan.chain.size(); ++k) {
      const Node& n = g.nodes[plan.chain[k]];
      std::vector<std::string> ins = n.inputs;
      for (size_t j = 0; j < ins.size(); ++j) {
        const Operand& op = plan.operands[k][j];
        if (op.kind == Operand::Kind::Chain) ins[j] = k == 0 ? source : g.nodes[plan.chain[k - 1]].outputs[0];
        else if (op.kind == Operand::Kind::Untransposed) ins[j] = op.replacement;
        else if (op.kind == Operand::Kind::Constant) constants.emplace_back(k, j, *idx.constant(ins[j]));
      }
      newInputs.push_back(std::move(ins));
    }
    for (auto& [k, j, c] : constants) {
      c.dims.insert(c.dims.begin(), rank - c.dims.size(), 1);
      newInputs[k][j] = addInitializer(g, transposeTensor(c, pinv), newInputs[k][j] + "_transposed");
    }
    for (size_t k = 0; k < chain.size(); ++k) {
      Node* n = g.findNode(chain[k]);
      n->inputs = newInputs[k];
      // The intermediate now has the untransposed layout: permute its recorded shape.
      for (ValueInfo& vi : g.valueInfo)
        if (vi.name == n->outputs[0] && vi.type.shape) {
          if (vi.type.shape->rank() != rank) {
            vi.type.shape.reset();
            continue;
          }
          Shape s;
          for (size_t j = 0; j < rank; ++j) s.dims.push_back(vi.type.shape->dims[static_cast<size_t>(pinv[j])]);
          vi.type.shape = std::move(s);
        }
    }
    std::vector<NodeId> drop{t1};
    const bool cancelled = isIdentity(plan.r);
    if (cancelled) {
      g.findNode(chain.back())->outputs[0] = t2out;
      drop.push_back(t2);
      r.note = "inverse Transpose pair cancelled";
    } else {
      g.findNode(t2)->setAttr(Attribute::makeInts("perm", plan.r));
      r.note = "two Transposes merged into one";
    }
    g.removeNodes(drop);
    for (NodeId id : chain) r.nodesAfter.push_back(g.findNode(id)->name);
    if (!cancelled) r.nodesAfter.push_back(g.findNode(t2)->name);
  }

  PassInfo m_info{"push_transpose_through_elementwise", OptLevel::Conservative, false,
                  "push a Transpose through elementwise ops (permuting their constants) so that it "
                  "cancels or merges with the Transpose after them"};
};

}  // namespace

std::unique_ptr<Pass> makePushTransposeThroughElementwise() { return std::make_unique<PushTranspose>(); }

}  // namespace msa
