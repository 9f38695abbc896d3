// A residual Add feeding a normalization over the last axis, as one ONNX Runtime kernel:
//  - Add(x, y) [+ bias] → LayerNormalization  =>  com.microsoft SkipLayerNormalization;
//  - Add(x, y) [+ bias] → RMSNorm (SimplifiedLayerNormalization, or decomposed as
//    Pow/Mul → ReduceMean → Add(ε) → Sqrt → Div|Reciprocal (→ Mul γ))
//    =>  com.microsoft SkipSimplifiedLayerNormalization.
// When the sum is read elsewhere too — the residual stream of a pre-norm transformer, which ONNX
// Runtime's SkipLayerNormFusion leaves alone at load — the kernel's fourth output
// (input_skip_bias_sum) stands for it. A bias Add of a constant [hidden] on either operand, read
// only there, becomes the kernel's bias input.
#include <algorithm>

#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

constexpr const char* kMsDomain = "com.microsoft";

struct Fusion {
  std::vector<NodeId> ids;
  std::vector<std::string> names;
  Node node;
  std::optional<Tensor> ones;  // γ of an RMSNorm without one
};

class FuseSkipNorm final : public Pass {
 public:
  explicit FuseSkipNorm(bool rms) : m_rms(rms) {
    m_info = rms ? PassInfo{"fuse_skip_rmsnorm", OptLevel::Aggressive, true,
                            "residual Add + RMSNorm (SimplifiedLayerNormalization or decomposed) -> com.microsoft "
                            "SkipSimplifiedLayerNormalization (ONNX Runtime)",
                            false, "com.microsoft SkipSimplifiedLayerNormalization"}
                 : PassInfo{"fuse_skip_layernorm", OptLevel::Aggressive, true,
                            "residual Add + LayerNormalization -> com.microsoft SkipLayerNormalization (ONNX Runtime)", false,
                            "com.microsoft SkipLayerNormalization"};
  }
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    std::vector<Fusion> fusions;
    {
      GraphIndex idx(g);
      std::vector<bool> claimed(g.nodes.size(), false);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        auto m = matchSkipNorm(idx, i);
        if (!m || m->rms != m_rms || !m->match.blockers.empty()) continue;
        const auto& members = m->match.members;
        if (!anyAnchored(ctx, g, members) || std::any_of(members.begin(), members.end(), [&](size_t k) { return claimed[k]; }))
          continue;
        for (size_t k : members) claimed[k] = true;
        fusions.push_back(fuse(g, *m));
      }
    }
    std::vector<Rewrite> done;
    for (auto& f : fusions) {
      if (f.ones) f.node.inputs[2] = addInitializer(g, std::move(*f.ones), g.uniqueName(f.names.back() + "_gamma"));
      const std::string op = f.node.opType;
      f.node.name = fusedNodeName(g, f.names, op);
      const bool sum = f.node.outputs.size() > 3;
      std::string name = replaceNodes(g, f.ids, std::move(f.node));
      done.push_back({std::string(m_info.id), {}, f.names, {name}, true,
                      std::string(kMsDomain) + "." + op + " (ONNX Runtime contrib op)" +
                          (sum ? "; its input_skip_bias_sum output carries the residual stream" : "")});
    }
    if (!done.empty()) {
      // The sum may be read between the Add and the normalization: keep the list in execution order.
      if (!g.isTopologicallySorted()) g.sortTopologically();
      removeDeadCode(g);
      if (model.opset(kMsDomain) < 1) model.setOpset(kMsDomain, 1);
    }
    return done;
  }

 private:
  static Fusion fuse(const Graph& g, const SkipNormMatch& m) {
    Fusion f;
    for (size_t k : m.match.members) f.ids.push_back(g.nodes[k].id);
    f.names = nodeNames(g, m.match.members);
    f.node.opType = m.rms ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization";
    f.node.domain = kMsDomain;
    // input, skip, gamma[, beta][, bias]: SkipSimplifiedLayerNormalization has no beta.
    f.node.inputs = {m.residual.input, m.residual.skip, m.gamma};
    if (!m.rms && (!m.beta.empty() || !m.residual.bias.empty())) f.node.inputs.push_back(m.beta);
    if (!m.residual.bias.empty()) f.node.inputs.push_back(m.residual.bias);
    f.node.outputs = {m.match.output};
    if (m.sumRead) f.node.outputs = {m.match.output, "", "", m.match.input};
    f.node.attributes = {Attribute::makeFloat("epsilon", m.epsilon)};
    if (m.gamma.empty())
      f.ones = Tensor::fromValues({}, DType::Float, {m.hidden}, std::vector<float>(static_cast<size_t>(m.hidden), 1.f));
    return f;
  }

  bool m_rms;
  PassInfo m_info;
};

}  // namespace

std::unique_ptr<Pass> makeFuseSkipLayerNorm() { return std::make_unique<FuseSkipNorm>(false); }
std::unique_ptr<Pass> makeFuseSkipRmsNorm() { return std::make_unique<FuseSkipNorm>(true); }

}  // namespace msa
