// Nodes that return their input unchanged: a Cast to the type it already has, a Pad of zeros,
// an Expand to the shape it already has. Each is bypassed (graph output names kept), by the one
// nop-elimination pass (pass_util.h makeNopElimination) that reshapes.cpp uses too.
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

class EliminateNop final : public Pass {
 public:
  EliminateNop(PassInfo info, NopPredicate isNop) : m_info(info), m_isNop(std::move(isNop)) {}
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    std::vector<std::pair<NodeId, std::string>> targets;
    {
      GraphIndex idx(g);
      for (const Node& n : g.nodes)
        if (ctx.matches(n.name) && !n.inputs.empty() && !n.inputs[0].empty() && n.outputs.size() == 1 &&
            m_isNop(n, idx, model.opset()))
          targets.emplace_back(n.id, n.name);
    }
    for (const auto& [id, name] : targets) {
      const Node* n = g.findNode(id);
      if (n && forwardOutput(g, id, n->inputs[0])) done.push_back({std::string(m_info.id), {}, {name}, {}, false, {}});
    }
    if (!done.empty()) removeDeadCode(g);
    return done;
  }

 private:
  PassInfo m_info;
  NopPredicate m_isNop;
};

bool nopCast(const Node& n, const GraphIndex& idx, int64_t) {
  DType in = idx.dtype(n.inputs[0]);
  if (in == DType::Undefined) return false;
  if (n.is("Cast")) {
    const Attribute* to = n.attr("to");
    return to && to->type == AttrType::Int && static_cast<DType>(to->i) == in;
  }
  if (n.is("CastLike") && n.inputs.size() == 2) return idx.dtype(n.inputs[1]) == in;
  return false;
}

bool nopPad(const Node& n, const GraphIndex& idx, int64_t opset) {
  if (!n.is("Pad")) return false;
  std::vector<int64_t> pads;
  if (opset < 11) {
    pads = n.attrInts("pads");
  } else {
    if (n.inputs.size() < 2 || n.inputs[1].empty()) return false;
    const Tensor* t = idx.constant(n.inputs[1]);
    if (!t || !t->hasData()) return false;
    pads = t->toInt64();
    if (static_cast<int64_t>(pads.size()) != t->numElements()) return false;
  }
  if (pads.empty()) return false;
  return std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
}

bool nopExpand(const Node& n, const GraphIndex& idx, int64_t) {
  if (!n.is("Expand") || n.inputs.size() != 2) return false;
  const Shape* in = idx.shape(n.inputs[0]);
  if (!in) return false;
  if (const Tensor* t = idx.constant(n.inputs[1])) {
    // Broadcasting the input with `shape` must give the input's own shape.
    auto target = t->toInt64();
    if (static_cast<int64_t>(target.size()) != t->numElements() || target.size() > in->rank()) return false;
    const size_t off = in->rank() - target.size();
    for (size_t k = 0; k < target.size(); ++k) {
      const Dim& d = in->dims[off + k];
      if (target[k] == 1) continue;
      if (!d.known() || d.value != target[k]) return false;
    }
    return true;
  }
  const Shape* out = idx.shape(n.outputs[0]);
  return out && in->fullyKnown() && out->fullyKnown() && in->values() == out->values();
}

}  // namespace

std::unique_ptr<Pass> makeNopElimination(PassInfo info, NopPredicate isNop) {
  return std::make_unique<EliminateNop>(std::move(info), std::move(isNop));
}

std::unique_ptr<Pass> makeEliminateNopCast() {
  return makeNopElimination(
      PassInfo{"eliminate_nop_cast", OptLevel::Conservative, false, "remove Cast/CastLike to the type the value already has"},
      nopCast);
}

std::unique_ptr<Pass> makeEliminateNopPad() {
  return makeNopElimination(
      PassInfo{"eliminate_nop_pad", OptLevel::Conservative, false, "remove Pad nodes whose pads are all zero"}, nopPad);
}

std::unique_ptr<Pass> makeEliminateNopExpand() {
  return makeNopElimination(
      PassInfo{"eliminate_nop_expand", OptLevel::Conservative, false, "remove Expand nodes to the shape the value already has"},
      nopExpand);
}

}  // namespace msa
