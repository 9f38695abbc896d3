// Removes Identity and inference-time Dropout: both pass their input through unchanged.
#include "model/graph_index.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

bool isPassThrough(const Node& n, const GraphIndex& idx) {
  if (n.is("Identity")) return n.inputs.size() == 1 && n.outputs.size() == 1;
  if (!n.is("Dropout")) return false;
  // Opset 12+: training_mode is an input; only a constant false (or absent) is inference.
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* t = idx.constant(n.inputs[2]);
    auto v = t ? t->scalar() : std::nullopt;
    if (!v || *v != 0.0) return false;
  }
  if (n.attrInt("is_test", 1) == 0) return false;  // opset < 7 training flag
  // The mask output, if wired, must be unused.
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty() && (idx.consumerCount(n.outputs[k]) || idx.isGraphOutput(n.outputs[k]))) return false;
  return true;
}

class EliminateIdentity final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }
  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    std::vector<std::pair<NodeId, std::string>> targets;
    {
      GraphIndex idx(g);
      for (const Node& n : g.nodes)
        if (ctx.matches(n.name) && isPassThrough(n, idx)) targets.emplace_back(n.id, n.name);
    }
    for (const auto& [id, name] : targets)
      if (bypassNode(g, id)) done.push_back({std::string(m_info.id), {}, {name}, {}, false, {}});
    if (!done.empty()) removeDeadCode(g);
    return done;
  }

 private:
  PassInfo m_info{"eliminate_identity", OptLevel::Conservative, false,
                  "remove Identity and inference-time Dropout nodes"};
};

}  // namespace

std::unique_ptr<Pass> makeEliminateIdentity() { return std::make_unique<EliminateIdentity>(); }

}  // namespace msa
