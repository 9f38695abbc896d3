// Removes nodes whose results nobody reads and initializers nobody uses.
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

class EliminateDeadCode final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }
  std::vector<Rewrite> run(Model& model, const PassContext&) const override {
    std::vector<std::string> before;
    for (const Node& n : model.graph.nodes) before.push_back(n.name);
    size_t initializers = model.graph.initializers.size();
    if (removeDeadCode(model.graph) == 0 && model.graph.initializers.size() == initializers) return {};
    Rewrite r{std::string(m_info.id), {}, {}, {}, false, {}};
    for (const auto& name : before)
      if (!model.graph.findNodeByName(name)) r.nodesBefore.push_back(name);
    r.note = std::to_string(initializers - model.graph.initializers.size()) + " unused initializers removed";
    return {r};
  }

 private:
  PassInfo m_info{"eliminate_dead_code", OptLevel::Conservative, false,
                  "remove nodes whose results are unused and initializers nobody reads"};
};

}  // namespace

std::unique_ptr<Pass> makeEliminateDeadCode() { return std::make_unique<EliminateDeadCode>(); }

}  // namespace msa
