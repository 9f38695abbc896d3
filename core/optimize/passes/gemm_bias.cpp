// MatMul(2-D A, constant 2-D B) + Add(constant bias) → Gemm, and a constant Add after a Conv,
// ConvTranspose or Gemm folded into that node's bias.
#include <optional>

#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

// `dims` left-padded with 1s to `rank`; nothing when it has more axes.
std::optional<std::vector<int64_t>> padTo(const std::vector<int64_t>& dims, size_t rank) {
  if (dims.size() > rank) return std::nullopt;
  std::vector<int64_t> out(rank - dims.size(), 1);
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

// Values of `t` broadcast to `target` (t's dims must broadcast to it unidirectionally).
std::vector<double> broadcastValues(const Tensor& t, const std::vector<int64_t>& target) {
  auto dims = *padTo(t.dims, target.size());
  auto v = t.toDouble();
  size_t n = 1;
  for (int64_t d : target) n *= static_cast<size_t>(d);
  std::vector<double> out(n);
  std::vector<size_t> pos(target.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    size_t from = 0;
    for (size_t k = 0; k < target.size(); ++k) from = from * static_cast<size_t>(dims[k]) + (dims[k] == 1 ? 0 : pos[k]);
    out[i] = v[from];
    for (size_t k = target.size(); k-- > 0;) {
      if (++pos[k] < static_cast<size_t>(target[k])) break;
      pos[k] = 0;
    }
  }
  return out;
}

// Can a tensor of `dims` broadcast unidirectionally to [m, n] (m may be unknown: -1)?
bool broadcastsTo2d(const std::vector<int64_t>& dims, int64_t m, int64_t n) {
  auto d = padTo(dims, 2);
  if (!d) return false;
  return ((*d)[1] == 1 || (*d)[1] == n) && ((*d)[0] == 1 || (m >= 0 && (*d)[0] == m));
}

// Float types whose constants the passes rewrite (Tensor::fromDoubles writes them).
bool foldableFloat(DType t) {
  return t == DType::Float || t == DType::Double || t == DType::Float16 || t == DType::BFloat16;
}

bool sameDtype(const Tensor& t, const GraphIndex& idx, std::string_view value) {
  DType d = idx.dtype(value);
  return d == DType::Undefined || d == t.dtype;
}

class FuseMatMulAddIntoGemm final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    if (model.opset() < 7) return done;  // Gemm's C broadcasts like numpy only from opset 7
    Graph& g = model.graph;
    struct Match {
      NodeId mm, add;
      std::vector<std::string> names;
      Node gemm;
    };
    std::vector<Match> matches;
    {
      GraphIndex idx(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& mm = g.nodes[i];
        if (!mm.is("MatMul") || mm.inputs.size() != 2 || mm.outputs.size() != 1) continue;
        const Shape* a = idx.shape(mm.inputs[0]);
        const Tensor* b = idx.constant(mm.inputs[1]);
        if (!a || a->rank() != 2 || !b || b->dims.size() != 2 || !foldableFloat(b->dtype)) continue;
        long add = soleConsumer(idx, mm.outputs[0], "Add");
        if (add < 0) continue;
        const Node& ad = g.nodes[static_cast<size_t>(add)];
        std::string biasName = otherOperand(ad, mm.outputs[0]);
        const Tensor* bias = biasName.empty() ? nullptr : idx.constant(biasName);
        if (!bias || bias->dtype != b->dtype || !sameDtype(*b, idx, mm.inputs[0])) continue;
        if (!broadcastsTo2d(bias->dims, a->dims[0].value, b->dims[1])) continue;
        size_t members[] = {i, static_cast<size_t>(add)};
        if (!anyAnchored(ctx, g, members)) continue;
        Match m{mm.id, ad.id, nodeNames(g, members), {}};
        m.gemm.opType = "Gemm";
        m.gemm.inputs = {mm.inputs[0], mm.inputs[1], biasName};
        m.gemm.outputs = ad.outputs;
        matches.push_back(std::move(m));
      }
    }
    for (auto& m : matches) {
      NodeId drop[] = {m.mm, m.add};
      m.gemm.name = fusedNodeName(g, m.names, "Gemm");
      std::string name = replaceNodes(g, drop, std::move(m.gemm));
      done.push_back({std::string(m_info.id), {}, m.names, {name}, false, {}});
    }
    if (!done.empty()) removeDeadCode(g);
    return done;
  }

 private:
  PassInfo m_info{"fuse_matmul_add_into_gemm", OptLevel::Moderate, false,
                  "MatMul of a 2-D input by a constant 2-D weight plus a constant bias becomes one Gemm"};
};

class FoldAddIntoBias final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      const auto reads = subgraphReads(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& p = g.nodes[i];
        if (!isOneOf(p, {"Conv", "ConvTranspose", "Gemm"}) || p.outputs.size() != 1 || p.inputs.size() < 2) continue;
        long add = soleConsumer(idx, p.outputs[0], "Add");
        if (add < 0) continue;
        const Node& ad = g.nodes[static_cast<size_t>(add)];
        const Tensor* c = idx.constant(otherOperand(ad, p.outputs[0]));
        size_t members[] = {i, static_cast<size_t>(add)};
        if (!c || !foldableFloat(c->dtype) || !anyAnchored(ctx, g, members)) continue;
        // The new bias replaces the old one and the added constant: both must go with it.
        const std::string oldBias = p.inputs.size() > 2 ? p.inputs[2] : std::string();
        if (!exclusiveUse(idx, reads, otherOperand(ad, p.outputs[0])) || (!oldBias.empty() && !exclusiveUse(idx, reads, oldBias)))
          continue;
        auto bias = p.is("Gemm") ? gemmBias(p, idx, *c) : convBias(p, idx, *c);
        if (!bias) continue;
        NodeId pid = p.id, addId = ad.id;
        std::vector<std::string> names = nodeNames(g, members);
        std::string out = ad.outputs[0];
        std::string biasName = addInitializer(g, std::move(*bias), p.name + "_bias");
        Node* np = g.findNode(pid);
        if (np->inputs.size() < 3) np->inputs.resize(3);
        np->inputs[2] = biasName;
        if (np->is("Gemm")) np->setAttr(Attribute::makeFloat("beta", 1.f));
        np->outputs[0] = out;
        NodeId drop[] = {addId};
        g.removeNodes(drop);
        return Rewrite{std::string(m_info.id), {}, names, {names[0]}, false, {}};
      }
      return std::nullopt;
    });
  }

 private:
  // Conv/ConvTranspose: the added constant must be one value per output channel.
  static std::optional<Tensor> convBias(const Node& p, const GraphIndex& idx, const Tensor& c) {
    const Tensor* w = idx.constant(p.inputs[1]);
    if (!w || w->dims.size() < 3 || w->dtype != c.dtype) return std::nullopt;
    int64_t channels = p.is("Conv") ? w->dims[0] : w->dims[1] * p.attrInt("group", 1);
    auto cd = padTo(c.dims, w->dims.size());
    if (!cd) return std::nullopt;
    for (size_t k = 0; k < cd->size(); ++k)
      if ((*cd)[k] != 1 && !(k == 1 && (*cd)[k] == channels)) return std::nullopt;
    std::vector<double> b(static_cast<size_t>(channels), 0.0);
    if (p.inputs.size() > 2 && !p.inputs[2].empty()) {
      const Tensor* old = idx.constant(p.inputs[2]);
      if (!old || old->numElements() != channels || old->dtype != c.dtype) return std::nullopt;
      b = old->toDouble();
    }
    std::vector<double> cv = c.toDouble();  // one per channel, or one for all
    if ((*cd)[1] == 1) cv.assign(static_cast<size_t>(channels), cv.at(0));
    for (size_t k = 0; k < b.size(); ++k) b[k] += cv[k];
    return Tensor::fromDoubles({}, c.dtype, {channels}, b);
  }

  // Gemm: Y = α·A·B + β·C + c = α·A·B + (β·C + c), with β·C + c broadcast to Y's shape.
  static std::optional<Tensor> gemmBias(const Node& p, const GraphIndex& idx, const Tensor& c) {
    const Shape* y = idx.shape(p.outputs[0]);
    if (!y || y->rank() != 2 || !y->dims[1].known()) return std::nullopt;
    const int64_t m = y->dims[0].value, n = y->dims[1].value;
    if (!broadcastsTo2d(c.dims, m, n)) return std::nullopt;
    const Tensor* old = nullptr;
    if (p.inputs.size() > 2 && !p.inputs[2].empty()) {
      old = idx.constant(p.inputs[2]);
      if (!old || old->dtype != c.dtype || !broadcastsTo2d(old->dims, m, n)) return std::nullopt;
    }
    // The folded bias has the smallest shape covering both.
    auto cd = *padTo(c.dims, 2);
    std::vector<int64_t> dims = cd;
    if (old) {
      auto od = *padTo(old->dims, 2);
      for (size_t k = 0; k < 2; ++k) dims[k] = std::max(dims[k], od[k]);
    }
    Tensor c2 = c;
    c2.dims = cd;
    auto v = broadcastValues(c2, dims);
    if (old) {
      const double beta = p.attrFloat("beta", 1.f);
      Tensor o2 = *old;
      o2.dims = *padTo(old->dims, 2);
      auto ov = broadcastValues(o2, dims);
      for (size_t k = 0; k < v.size(); ++k) v[k] += beta * ov[k];
    }
    if (dims[0] == 1 && c.dims.size() < 2 && (!old || old->dims.size() < 2)) dims = {dims[1]};
    return Tensor::fromDoubles({}, c.dtype, dims, v);
  }

  PassInfo m_info{"fold_add_into_bias", OptLevel::Conservative, false,
                  "fold a constant Add after a Conv, ConvTranspose or Gemm into that node's bias"};
};

}  // namespace

std::unique_ptr<Pass> makeFuseMatMulAddIntoGemm() { return std::make_unique<FuseMatMulAddIntoGemm>(); }
std::unique_ptr<Pass> makeFoldAddIntoBias() { return std::make_unique<FoldAddIntoBias>(); }

}  // namespace msa
