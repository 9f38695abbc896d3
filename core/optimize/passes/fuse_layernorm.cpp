// A decomposed LayerNorm (the rules' matcher: ReduceMean → Sub → Pow → ReduceMean → Add(ε) →
// Sqrt → Div, optionally · γ + β) becomes one LayerNormalization over the same trailing axes.
// LayerNormalization is an opset-17 operator: an older model's opset is raised when every other
// node means the same at 17 (optimize/opset_raise.h), and the rewrite says so; otherwise nothing
// is fused. Moderate: the fused kernel computes the mean and variance in its own order (and in
// float32 for float16 inputs).
#include <cmath>

#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/opset_raise.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

bool lnType(DType t) { return t == DType::Float || t == DType::Double || t == DType::Float16 || t == DType::BFloat16; }

// γ or β as a tensor of the normalized shape, when it broadcasts within the normalized axes.
std::optional<Tensor> affine(const Tensor& c, const std::vector<int64_t>& normDims, size_t rank, DType t) {
  if (c.dims.size() > rank || c.dtype != t) return std::nullopt;
  std::vector<int64_t> d(rank - c.dims.size(), 1);
  d.insert(d.end(), c.dims.begin(), c.dims.end());
  const size_t lead = rank - normDims.size();
  for (size_t k = 0; k < lead; ++k)
    if (d[k] != 1) return std::nullopt;  // varies along a non-normalized axis
  for (size_t k = 0; k < normDims.size(); ++k)
    if (d[lead + k] != 1 && d[lead + k] != normDims[k]) return std::nullopt;
  auto v = c.toDouble();
  size_t n = 1;
  for (int64_t x : normDims) n *= static_cast<size_t>(x);
  std::vector<double> out(n);
  std::vector<size_t> pos(normDims.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    size_t from = 0;
    for (size_t k = 0; k < normDims.size(); ++k)
      from = from * static_cast<size_t>(d[lead + k]) + (d[lead + k] == 1 ? 0 : pos[k]);
    out[i] = v[from];
    for (size_t k = normDims.size(); k-- > 0;) {
      if (++pos[k] < static_cast<size_t>(normDims[k])) break;
      pos[k] = 0;
    }
  }
  return Tensor::fromDoubles({}, t, normDims, out);
}

struct Fusion {
  std::vector<NodeId> ids;
  std::vector<std::string> names;
  Node ln;
  Tensor scale;
  std::optional<Tensor> bias;
};

class FuseLayerNorm final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    std::vector<Fusion> fusions;
    {
      GraphIndex idx(g);
      for (size_t i = 0; i < g.nodes.size(); ++i)
        if (auto f = match(g, idx, ctx, i)) fusions.push_back(std::move(*f));
    }
    if (fusions.empty()) return done;
    std::string note;
    if (model.opset() < 17) {
      auto raised = raiseOpset(model, 17);
      if (!raised) return done;  // the rest of the graph would change meaning: leave it decomposed
      note = raised->note();
    }
    for (auto& f : fusions) {
      f.ln.name = fusedNodeName(g, f.names, "LayerNormalization");  // unique among what earlier fusions added
      f.ln.inputs.push_back(addInitializer(g, std::move(f.scale), f.ln.name + "_scale"));
      if (f.bias) f.ln.inputs.push_back(addInitializer(g, std::move(*f.bias), f.ln.name + "_bias"));
      std::string name = replaceNodes(g, f.ids, std::move(f.ln));
      done.push_back({std::string(m_info.id), {}, f.names, {name}, false, note});
      note.clear();  // said once, on the rewrite that needed it
    }
    removeDeadCode(g);
    return done;
  }

 private:
  static std::optional<Fusion> match(const Graph& g, const GraphIndex& idx, const PassContext& ctx, size_t i) {
    auto m = matchLayerNorm(idx, i);
    if (!m || !m->blockers.empty() || !anyAnchored(ctx, g, m->members)) return std::nullopt;
    const auto& mem = m->members;
    const Node& sq = g.nodes[mem[2]];
    if (sq.is("Pow") && constScalar(idx, sq.input(1)) != 2.0) return std::nullopt;  // the matcher is lenient
    const Node& addEps = g.nodes[mem[4]];
    auto eps = constScalar(idx, otherOperand(addEps, g.nodes[mem[3]].outputs[0]));
    if (!eps || *eps < 0) return std::nullopt;
    const Shape* xs = idx.shape(m->input);
    DType t = idx.dtype(m->input);
    if (!xs || !lnType(t)) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(xs->rank());
    auto axes = reduceAxes(g.nodes[mem[0]], idx);
    if (axes.empty() && g.nodes[mem[0]].attrInt("noop_with_empty_axes", 0) != 0) return std::nullopt;
    const int64_t axis = axes.empty() ? 0 : rank - static_cast<int64_t>(axes.size());
    std::vector<int64_t> normDims;
    for (int64_t k = axis; k < rank; ++k) {
      if (!xs->dims[static_cast<size_t>(k)].known()) return std::nullopt;
      normDims.push_back(xs->dims[static_cast<size_t>(k)].value);
    }
    // The affine tail: the members after the normalisation (Div, or Reciprocal·Mul).
    const size_t normEnd = g.nodes[mem[6]].is("Div") ? 7 : 8;
    std::optional<Tensor> scale, bias;
    if (mem.size() > normEnd) {
      const Node& mul = g.nodes[mem[normEnd]];
      const Tensor* gamma = idx.constant(otherOperand(mul, g.nodes[mem[normEnd - 1]].outputs[0]));
      if (!gamma || !(scale = affine(*gamma, normDims, static_cast<size_t>(rank), t))) return std::nullopt;
      if (mem.size() > normEnd + 1) {
        const Node& add = g.nodes[mem[normEnd + 1]];
        const Tensor* beta = idx.constant(otherOperand(add, mul.outputs[0]));
        if (!beta || !(bias = affine(*beta, normDims, static_cast<size_t>(rank), t))) return std::nullopt;
      }
    } else {
      size_t n = 1;
      for (int64_t d : normDims) n *= static_cast<size_t>(d);
      scale = Tensor::fromDoubles({}, t, normDims, std::vector<double>(n, 1.0));
    }
    Fusion f;
    for (size_t k : mem) f.ids.push_back(g.nodes[k].id);
    f.names = nodeNames(g, mem);
    f.ln.opType = "LayerNormalization";
    f.ln.inputs = {m->input};
    f.ln.outputs = {m->output};
    f.ln.attributes = {Attribute::makeInt("axis", axis), Attribute::makeFloat("epsilon", static_cast<float>(*eps))};
    f.scale = std::move(*scale);
    f.bias = std::move(bias);
    return f;
  }

  PassInfo m_info{"fuse_layernorm", OptLevel::Moderate, false,
                  "replace a decomposed LayerNorm by LayerNormalization (raises the opset to 17 when the graph allows)"};
};

}  // namespace

std::unique_ptr<Pass> makeFuseLayerNorm() { return std::make_unique<FuseLayerNorm>(); }

}  // namespace msa
