// Folds an inference BatchNormalization into the Conv, ConvTranspose or Gemm that feeds it:
// y = s·(W·x + b − mean) + β with s = γ/√(var+ε) becomes W' = s·W, b' = s·(b − mean) + β.
// Computed in double precision and rounded once to the weights' dtype.
#include <cmath>

#include "model/graph_index.h"
#include "model/rewrite.h"
#include "optimize/pass.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

struct BnParams {
  std::vector<double> scale;  // s
  std::vector<double> shift;  // β − s·mean
};

std::optional<BnParams> bnParams(const Node& bn, const GraphIndex& idx) {
  if (bn.inputs.size() < 5 || bn.attrInt("training_mode", 0) != 0) return std::nullopt;
  for (size_t k = 1; k < bn.outputs.size(); ++k)
    if (!bn.outputs[k].empty()) return std::nullopt;  // training outputs in use
  const Tensor* t[4];
  for (int k = 0; k < 4; ++k)
    if (!(t[k] = idx.constant(bn.inputs[k + 1]))) return std::nullopt;
  auto gamma = t[0]->toDouble(), beta = t[1]->toDouble(), mean = t[2]->toDouble(), var = t[3]->toDouble();
  size_t c = gamma.size();
  if (c == 0 || beta.size() != c || mean.size() != c || var.size() != c) return std::nullopt;
  double eps = bn.attrFloat("epsilon", 1e-5f);
  BnParams p;
  p.scale.resize(c);
  p.shift.resize(c);
  for (size_t i = 0; i < c; ++i) {
    p.scale[i] = gamma[i] / std::sqrt(var[i] + eps);
    p.shift[i] = beta[i] - p.scale[i] * mean[i];
  }
  return p;
}

// Scales weight element i by s[channelOf(i)] and returns the new tensor.
template <typename ChannelOf>
Tensor scaled(const Tensor& w, const std::vector<double>& s, ChannelOf channelOf) {
  auto v = w.toDouble();
  for (size_t i = 0; i < v.size(); ++i) v[i] *= s[channelOf(i)];
  return Tensor::fromDoubles(w.name, w.dtype, w.dims, v);
}

class FoldBatchNorm final : public Pass {
 public:
  FoldBatchNorm(PassInfo info, std::vector<std::string_view> producers) : m_info(info), m_producers(std::move(producers)) {}
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      const auto reads = subgraphReads(g);
      for (const Node& bn : g.nodes) {
        if (!bn.is("BatchNormalization")) continue;
        const Node* p = idx.producerNode(bn.input(0));
        if (!p || !isOneOf(*p, m_producers) || (!ctx.matches(p->name) && !ctx.matches(bn.name))) continue;
        if (!singleUse(idx, p->outputs[0])) continue;
        if (!foldFrees(idx, reads, *p, bn)) {
          ctx.note(bn.name + ": not folded into " + p->name + ": its weights are shared with other nodes (folding would copy them)");
          continue;
        }
        auto params = bnParams(bn, idx);
        if (!params) continue;
        NodeId pid = p->id, bnId = bn.id;
        std::string pName = p->name, bnName = bn.name, out = bn.outputs[0];
        if (!fold(g, idx, *p, *params)) continue;
        Node* np = g.findNode(pid);
        np->outputs[0] = out;
        NodeId drop[] = {bnId};
        g.removeNodes(drop);
        return Rewrite{std::string(m_info.id), {}, {pName, bnName}, {pName}, false, {}};
      }
      return std::nullopt;
    });
  }

 private:
  // The weight, bias and statistics the fold replaces are read by these two nodes alone, so the
  // folded copies take their place instead of adding to them (tied weights stay tied).
  static bool foldFrees(const GraphIndex& idx, const std::unordered_set<std::string>& reads, const Node& p, const Node& bn) {
    for (size_t k = 1; k < p.inputs.size() && k < 3; ++k)
      if (!p.inputs[k].empty() && !exclusiveUse(idx, reads, p.inputs[k])) return false;
    for (size_t k = 1; k < bn.inputs.size() && k < 5; ++k)
      if (!exclusiveUse(idx, reads, bn.inputs[k])) return false;
    return true;
  }

  // Writes the folded weight and bias into the producer; false when shapes don't allow it.
  bool fold(Graph& g, const GraphIndex& idx, const Node& p, const BnParams& bn) const {
    const size_t c = bn.scale.size();
    const Tensor* w = idx.constant(p.input(1));
    if (!w || !isFloating(w->dtype) || w->dims.size() < 2) return false;
    const Tensor* b = p.inputs.size() > 2 && !p.inputs[2].empty() ? idx.constant(p.inputs[2]) : nullptr;
    if (p.inputs.size() > 2 && !p.inputs[2].empty() && !b) return false;

    Tensor nw, nb;
    std::vector<double> bias(c, 0.0);
    if (p.is("Conv")) {
      if (w->dims[0] != static_cast<int64_t>(c)) return false;
      size_t per = static_cast<size_t>(w->numElements()) / c;
      nw = scaled(*w, bn.scale, [&](size_t i) { return i / per; });
    } else if (p.is("ConvTranspose")) {  // W: [C_in, M/group, k…], output channel = group·(M/g) + j
      int64_t group = p.attrInt("group", 1);
      int64_t mg = w->dims[1];
      if (mg * group != static_cast<int64_t>(c) || w->dims[0] % group != 0) return false;
      size_t inner = static_cast<size_t>(w->numElements() / (w->dims[0] * mg));
      size_t cinPerGroup = static_cast<size_t>(w->dims[0] / group);
      nw = scaled(*w, bn.scale, [&](size_t i) {
        size_t j = (i / inner) % static_cast<size_t>(mg), cin = i / (inner * static_cast<size_t>(mg));
        return (cin / cinPerGroup) * static_cast<size_t>(mg) + j;
      });
    } else {  // Gemm: Y = α·A·B' + β·C, output channel = column of Y
      if (w->dims.size() != 2 || p.attrFloat("alpha", 1.f) != 1.f) return false;
      const Shape* y = idx.shape(p.outputs[0]);
      if (!y || y->rank() != 2) return false;
      bool transB = p.attrInt("transB", 0) != 0;
      size_t n = static_cast<size_t>(transB ? w->dims[0] : w->dims[1]);
      if (n != c) return false;
      size_t cols = static_cast<size_t>(w->dims[1]);
      nw = scaled(*w, bn.scale, [&](size_t i) { return transB ? i / cols : i % cols; });
      if (b) {  // only a per-column bias folds into a per-column result
        if (b->numElements() != static_cast<int64_t>(c) || b->dims.size() > 2 || (b->dims.size() == 2 && b->dims[0] != 1))
          return false;
        double beta = p.attrFloat("beta", 1.f);
        auto bv = b->toDouble();
        for (size_t i = 0; i < c; ++i) bias[i] = beta * bv[i];
      }
    }
    if (b && !p.is("Gemm")) {
      if (b->numElements() != static_cast<int64_t>(c)) return false;
      bias = b->toDouble();
    }
    for (size_t i = 0; i < c; ++i) bias[i] = bn.scale[i] * bias[i] + bn.shift[i];
    nb = Tensor::fromDoubles({}, w->dtype, {static_cast<int64_t>(c)}, bias);

    std::string wName = addInitializer(g, std::move(nw), p.name + "_folded_weight");
    std::string bName = addInitializer(g, std::move(nb), p.name + "_folded_bias");
    Node* np = g.findNode(p.id);
    np->inputs[1] = wName;
    if (np->inputs.size() < 3) np->inputs.resize(3);
    np->inputs[2] = bName;
    if (np->is("Gemm")) np->setAttr(Attribute::makeFloat("beta", 1.f));
    return true;
  }

  PassInfo m_info;
  std::vector<std::string_view> m_producers;
};

}  // namespace

std::unique_ptr<Pass> makeFoldBnIntoConv() {
  return std::make_unique<FoldBatchNorm>(
      PassInfo{"fold_bn_into_conv", OptLevel::Conservative, false,
               "fold an inference BatchNormalization into the Conv or ConvTranspose before it"},
      std::vector<std::string_view>{"Conv", "ConvTranspose"});
}

std::unique_ptr<Pass> makeFoldBnIntoGemm() {
  return std::make_unique<FoldBatchNorm>(
      PassInfo{"fold_bn_into_gemm", OptLevel::Conservative, false,
               "fold an inference BatchNormalization into the Gemm before it"},
      std::vector<std::string_view>{"Gemm"});
}

}  // namespace msa
