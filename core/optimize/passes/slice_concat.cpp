// A Concat that puts back together, in order, the pieces a Split (or contiguous Slices) cut
// from one value is that value: the Concat goes, its readers read the source.
#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

class EliminateSliceConcat final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    struct Target {
      NodeId concat;
      std::string source;
      std::vector<std::string> names;
    };
    std::vector<Target> targets;
    {
      GraphIndex idx(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& c = g.nodes[i];
        if (!c.is("Concat") || c.outputs.size() != 1) continue;
        auto source = concatRebuiltSource(idx, c);
        if (!source) continue;
        std::vector<size_t> members;
        for (const auto& in : c.inputs) {
          size_t p = static_cast<size_t>(idx.producer(in));
          if (std::find(members.begin(), members.end(), p) == members.end()) members.push_back(p);
        }
        members.push_back(i);
        if (!anyAnchored(ctx, g, members)) continue;
        targets.push_back({c.id, *source, nodeNames(g, members)});
      }
    }
    for (auto& t : targets)
      if (forwardOutput(g, t.concat, t.source)) {
        Rewrite r{std::string(m_info.id), {}, t.names, {}, false, {}};
        // Pieces something else reads stay.
        for (size_t k = 0; k + 1 < t.names.size(); ++k)
          if (const Node* n = g.findNodeByName(t.names[k]))
            if (std::any_of(n->outputs.begin(), n->outputs.end(), [&](const std::string& o) { return isUsed(g, o); }))
              r.nodesAfter.push_back(t.names[k]);
        done.push_back(std::move(r));
      }
    if (!done.empty()) removeDeadCode(g);
    return done;
  }

 private:
  PassInfo m_info{"eliminate_slice_concat", OptLevel::Conservative, false,
                  "remove a Concat that rebuilds, in order, the value a Split or contiguous Slices cut up"};
};

}  // namespace

std::unique_ptr<Pass> makeEliminateSliceConcat() { return std::make_unique<EliminateSliceConcat>(); }

}  // namespace msa
