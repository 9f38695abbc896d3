// Shape-only ops: a chain of Reshape/Flatten/Squeeze/Unsqueeze becomes one Reshape to its static
// final shape, and one that leaves the shape as it was disappears.
#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

const std::vector<std::string_view> kReshapeLike{"Reshape", "Flatten", "Squeeze", "Unsqueeze"};

bool reshapeLike(const Node& n) { return isOneOf(n, kReshapeLike) && n.outputs.size() == 1 && !n.inputs.empty(); }

class MergeReshapes final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    if (model.opset() < 5) return done;  // Reshape takes its shape as an input from opset 5
    Graph& g = model.graph;
    struct Match {
      std::vector<NodeId> ids;
      std::vector<std::string> names;
      Node reshape;
      Tensor shape;
    };
    std::vector<Match> matches;
    {
      GraphIndex idx(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& first = g.nodes[i];
        if (!reshapeLike(first)) continue;
        // Only at the head of a chain (the rule anchors its finding there too).
        if (const Node* p = idx.producerNode(first.inputs[0]); p && reshapeLike(*p) && soleConsumer(idx, p->outputs[0]) >= 0)
          continue;
        std::vector<size_t> members{i};
        for (long next = soleConsumer(idx, first.outputs[0]); next >= 0 && reshapeLike(g.nodes[static_cast<size_t>(next)]);
             next = soleConsumer(idx, g.nodes[static_cast<size_t>(next)].outputs[0]))
          members.push_back(static_cast<size_t>(next));
        if (members.size() < 2 || !anyAnchored(ctx, g, members)) continue;
        const Node& last = g.nodes[members.back()];
        const Shape* s = idx.shape(last.outputs[0]);
        if (!s || !s->fullyKnown()) continue;
        auto dims = s->values();
        bool hasZero = std::find(dims.begin(), dims.end(), 0) != dims.end();
        if (hasZero && model.opset() < 14) continue;  // a 0 would mean "copy the input dim"
        Match m;
        for (size_t k : members) m.ids.push_back(g.nodes[k].id);
        m.names = nodeNames(g, members);
        m.reshape.opType = "Reshape";
        m.reshape.outputs = last.outputs;
        m.reshape.inputs = {first.inputs[0]};
        if (hasZero) m.reshape.attributes.push_back(Attribute::makeInt("allowzero", 1));
        m.shape = int64Tensor({static_cast<int64_t>(dims.size())}, dims);
        matches.push_back(std::move(m));
      }
    }
    for (auto& m : matches) {
      // The merged Reshape keeps the chain's last name when that was a Reshape: the node the user
      // saw (and the profile measured) keeps its identity, and the drawing only loses boxes.
      const Node* last = g.findNode(m.ids.back());
      m.reshape.name = last && last->is("Reshape") ? last->name : fusedNodeName(g, m.names, "Reshape");
      m.reshape.inputs.push_back(addInitializer(g, std::move(m.shape), m.reshape.name + "_shape"));
      std::string name = replaceNodes(g, m.ids, std::move(m.reshape));
      done.push_back({std::string(m_info.id), {}, m.names, {name}, false, {}});
    }
    if (!done.empty()) removeDeadCode(g);
    return done;
  }

 private:
  PassInfo m_info{"merge_reshapes", OptLevel::Conservative, false,
                  "merge a chain of Reshape/Flatten/Squeeze/Unsqueeze into one Reshape to the static final shape"};
};

// Does the reshape-like node leave its input's shape unchanged?
bool isNopReshape(const Node& n, const GraphIndex& idx) {
  const Shape* in = idx.shape(n.inputs[0]);
  const Shape* out = idx.shape(n.outputs[0]);
  if (in && out && in->fullyKnown() && out->fullyKnown() && in->values() == out->values()) return true;
  if (!in) return false;
  const size_t rank = in->rank();
  if (n.is("Flatten")) {  // [a, b] flattened at axis 1 is [a, b]
    int64_t axis = n.attrInt("axis", 1);
    return rank == 2 && (axis == 1 || axis == -1);
  }
  if (n.is("Reshape") && n.attrInt("allowzero", 0) == 0 && n.inputs.size() > 1) {
    // [0, 0, …, -1?]: every dim copied (one -1 then takes the one left), whatever the dims are.
    const Tensor* t = idx.constant(n.inputs[1]);
    if (!t || static_cast<size_t>(t->numElements()) != rank) return false;
    int wild = 0;
    for (int64_t v : t->toInt64()) {
      if (v == -1) ++wild;
      else if (v != 0) return false;
    }
    return wild <= 1;
  }
  return false;
}

}  // namespace

std::unique_ptr<Pass> makeMergeReshapes() { return std::make_unique<MergeReshapes>(); }
std::unique_ptr<Pass> makeEliminateNopReshape() {
  return makeNopElimination(PassInfo{"eliminate_nop_reshape", OptLevel::Conservative, false,
                                     "remove Reshape/Flatten/Squeeze/Unsqueeze nodes that leave the shape unchanged"},
                            [](const Node& n, const GraphIndex& idx, int64_t) { return reshapeLike(n) && isNopReshape(n, idx); });
}

}  // namespace msa
