// Cancels inverse Transpose pairs, merges consecutive Transposes into one and removes
// Transposes whose permutation is the identity.
#include <numeric>

#include "model/graph_index.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

class CancelTransposes final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    // Each rewrite removes what it left unread at once: no Transpose nobody reads is looked at again.
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      for (const Node& t2 : g.nodes) {
        if (!t2.is("Transpose")) continue;
        const Node* t1 = idx.producerNode(t2.input(0));
        auto perm2 = transposePerm(t2, idx);
        if (perm2.empty()) continue;
        std::vector<int64_t> composed;
        std::string before, source;
        if (t1 && t1->is("Transpose")) {
          if (!ctx.matches(t1->name) && !ctx.matches(t2.name)) continue;
          auto perm1 = transposePerm(*t1, idx);
          if (perm1.size() != perm2.size()) continue;
          for (int64_t a : perm2) composed.push_back(perm1[static_cast<size_t>(a)]);
          before = t1->name;
          source = t1->inputs[0];
        } else {
          if (!ctx.matches(t2.name) || !isIdentity(perm2)) continue;
          // A lone identity Transpose: removed, or left alone when it cannot be (a graph input
          // straight to a graph output). Counting the latter as a rewrite looped forever.
          const std::string name = t2.name;
          if (!bypassNode(g, t2.id)) continue;
          removeDeadCode(g);
          return Rewrite{std::string(m_info.id), {}, {name}, {}, false, {}};
        }
        NodeId id = t2.id;
        std::string name = t2.name;
        Node* n = g.findNode(id);
        n->inputs[0] = source;
        Rewrite r{std::string(m_info.id), {}, {}, {}, false, {}};
        if (!before.empty()) r.nodesBefore.push_back(before);
        r.nodesBefore.push_back(name);
        if (isIdentity(composed)) {
          if (!bypassNode(g, id)) {  // keep it as a (harmless) merged Transpose instead
            n = g.findNode(id);
            n->setAttr(Attribute::makeInts("perm", composed));
            r.nodesAfter.push_back(name);
          }
        } else {
          n->setAttr(Attribute::makeInts("perm", composed));
          r.nodesAfter.push_back(name);
        }
        if (!before.empty() && r.nodesAfter.size() == 1 && r.nodesBefore.size() == 2) r.note = "merged";
        removeDeadCode(g);
        return r;
      }
      return std::nullopt;
    });
  }

 private:
  PassInfo m_info{"cancel_transposes", OptLevel::Conservative, false,
                  "cancel inverse Transpose pairs, merge consecutive Transposes, drop identity Transposes"};
};

}  // namespace

std::unique_ptr<Pass> makeCancelTransposes() { return std::make_unique<CancelTransposes>(); }

}  // namespace msa
