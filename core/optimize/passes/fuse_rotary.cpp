// Rotary position embedding in rotate-half form, x·cos + Concat(−x₂, x₁)·sin over the heads'
// last axis, as com.microsoft RotaryEmbedding (interleaved = 0), which ONNX Runtime does not fuse
// at load. Exact where the kernel's semantics are the graph's: x is [batch, heads, sequence,
// head] (BNSH), the halves are the two halves of the last axis, cos and sin are constant tables
// over [sequence, head] whose two halves are equal (the kernel reads half-width caches), and the
// positions are 0…sequence−1 (position_ids = [0], the offset of every batch).
#include <algorithm>
#include <map>

#include "model/graph_patterns.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

constexpr const char* kMsDomain = "com.microsoft";

// The [S, D/2] cache of a constant [.., S, D] table whose halves agree (rotaryForm checked it).
Tensor halfTable(const Tensor& t, int64_t S, int64_t D) {
  std::string_view raw = t.raw();
  std::string half;
  for (int64_t s = 0; s < S; ++s) half.append(raw.data() + s * D * 4, static_cast<size_t>(D / 2 * 4));
  Tensor h;
  h.dtype = DType::Float;
  h.dims = {S, D / 2};
  h.data = TensorBytes::owned(std::move(half));
  return h;
}

struct Fusion {
  std::vector<NodeId> ids;
  std::vector<std::string> names;
  std::string x, output, cos, sin;
  int64_t S = 0, D = 0;
};

class FuseRotary final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    std::vector<Fusion> fusions;
    std::map<std::string, Tensor> caches;  // table -> its half-width cache
    {
      GraphIndex idx(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        auto m = matchRotary(idx, i);
        if (!m || !m->blockers.empty() || !anyAnchored(ctx, g, m->members)) continue;
        auto f = exact(idx, *m, caches);
        if (!f) continue;
        for (size_t k : m->members) f->ids.push_back(g.nodes[k].id);
        f->names = nodeNames(g, m->members);
        fusions.push_back(std::move(*f));
      }
    }
    std::vector<Rewrite> done;
    std::map<std::string, std::string> cacheNames;
    std::string positions;
    for (auto& f : fusions) {
      auto cacheOf = [&](const std::string& table) {
        auto it = cacheNames.find(table);
        if (it != cacheNames.end()) return it->second;
        return cacheNames[table] = addInitializer(g, std::move(caches.at(table)), g.uniqueName(table + "_half"));
      };
      if (positions.empty()) positions = addInitializer(g, int64Tensor({1}, {0}), g.uniqueName("rotary_position_offset"));
      Node n;
      n.opType = "RotaryEmbedding";
      n.domain = kMsDomain;
      n.inputs = {f.x, positions, cacheOf(f.cos), cacheOf(f.sin)};
      n.outputs = {f.output};
      n.attributes = {Attribute::makeInt("interleaved", 0)};
      n.name = fusedNodeName(g, f.names, "RotaryEmbedding");
      std::string name = replaceNodes(g, f.ids, std::move(n));
      done.push_back({std::string(m_info.id), {}, f.names, {name}, true,
                      "com.microsoft RotaryEmbedding (ONNX Runtime contrib op), rotate-half, positions 0.." +
                          std::to_string(f.S - 1)});
    }
    if (!done.empty()) {
      removeDeadCode(g);
      if (model.opset(kMsDomain) < 1) model.setOpset(kMsDomain, 1);
    }
    return done;
  }

 private:
  static std::optional<Fusion> exact(const GraphIndex& idx, const PatternMatch& m, std::map<std::string, Tensor>& caches) {
    auto r = rotaryForm(idx, m);
    if (!r) return std::nullopt;
    for (const std::string* table : {&r->cos, &r->sin})
      if (!caches.count(*table)) caches.emplace(*table, halfTable(*idx.constant(*table), r->sequence, r->head));
    return Fusion{{}, {}, r->x, m.output, r->cos, r->sin, r->sequence, r->head};
  }

  PassInfo m_info{"fuse_rotary", OptLevel::Aggressive, true,
                  "rotary embedding in rotate-half form (x·cos + Concat(−x₂, x₁)·sin) over [batch, heads, sequence, head] "
                  "-> com.microsoft RotaryEmbedding (ONNX Runtime)",
                  false, "com.microsoft RotaryEmbedding"};
};

}  // namespace

std::unique_ptr<Pass> makeFuseRotary() { return std::make_unique<FuseRotary>(); }

}  // namespace msa
