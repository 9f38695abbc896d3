// Self-attention as one com.microsoft Attention node (ONNX Runtime's CPU kernel): the Q/K/V
// projections, head split, scaled MatMul, masks, Softmax, MatMul with V and head merge that
// model/attention_form.h proves the kernel computes. ONNX Runtime's own AttentionFusion runs at
// load only on the BERT layouts it knows; torch's exports of GPT-2-style decoders and of
// nn.MultiheadAttention stay a dozen kernels per layer there.
//
// The Attention node reads the projections' weights gathered into one [Cin, 3C] matrix (the packed
// weight itself when its columns are already q|k|v) and their biases as one [3C] vector (zeros for
// a projection without one: the CPU kernel needs the input). Masks become unidirectional = 1, a
// mask_index [batch, keys] int32 computed from the boolean padding value, or attention_bias.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <unordered_set>

#include "model/attention_form.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

constexpr const char* kMsDomain = "com.microsoft";

Tensor floatTensor(std::vector<int64_t> dims, const std::vector<float>& v) {
  return Tensor::fromValues({}, DType::Float, std::move(dims), v);
}

// Would the rewrite free `constant` (every reader a replaced node, or a Transpose only they read)?
bool freedBy(const GraphIndex& idx, const std::unordered_set<std::string>& subReads, const std::set<size_t>& members,
             const std::string& constant) {
  if (idx.isGraphOutput(constant) || subReads.count(constant)) return false;
  for (const Use& u : idx.consumers(constant)) {
    if (members.count(u.node)) continue;
    const Node& t = idx.graph().nodes[u.node];
    if (!t.is("Transpose")) return false;
    for (const Use& w : idx.consumers(t.outputs[0]))
      if (!members.count(w.node)) return false;
    if (idx.isGraphOutput(t.outputs[0]) || subReads.count(t.outputs[0])) return false;
  }
  return true;
}

struct Plan {
  std::vector<NodeId> members;
  std::vector<std::string> memberNames;
  std::vector<std::pair<NodeId, Tensor>> shapeConstants;  // Shape/Size readers become Constants
  std::string weight, bias;                               // reused names, or empty: new tensors
  std::optional<Tensor> newWeight, newBias;
  bool additiveView = false;  // the additive mask needs a Reshape to [b, h, s, keys]
  AttentionForm form;
};

class FuseAttention final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    std::vector<Plan> plans;
    {
      GraphIndex idx(g);
      KnownOperands known(idx, true);
      const auto subReads = subgraphReads(g);
      std::set<size_t> claimed;
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (!g.nodes[i].is("Softmax")) continue;
        const bool anchored = !ctx.anchors.empty() && ctx.matches(g.nodes[i].name);
        auto a = analyzeAttention(known, i, model.opset());
        if (!a.form) {
          if (anchored) ctx.note("fuse_attention: '" + g.nodes[i].name + "' " + a.declined);
          continue;
        }
        AttentionForm& f = *a.form;
        if (!anyAnchored(ctx, g, f.members)) continue;
        if (!f.blockers.empty()) {
          ctx.note("fuse_attention: '" + g.nodes[i].name + "' left: " + f.blockers.front());
          continue;
        }
        if (std::any_of(f.members.begin(), f.members.end(), [&](size_t m) { return claimed.count(m) != 0; })) continue;
        auto plan = planFor(idx, subReads, std::move(f));
        if (!plan) {
          ctx.note("fuse_attention: '" + g.nodes[i].name + "' left: its weights are shared with other nodes (a copy would grow the model)");
          continue;
        }
        claimed.insert(plan->form.members.begin(), plan->form.members.end());
        plans.push_back(std::move(*plan));
      }
    }
    std::vector<Rewrite> done;
    std::map<std::string, std::string> maskIndexOf;  // padding value -> its int32 mask_index
    for (Plan& p : plans) done.push_back(apply(g, p, maskIndexOf));
    if (!done.empty()) {
      removeDeadCode(g);
      if (model.opset(kMsDomain) < 1) model.setOpset(kMsDomain, 1);
    }
    return done;
  }

 private:
  static std::optional<Plan> planFor(const GraphIndex& idx, const std::unordered_set<std::string>& subReads, AttentionForm f) {
    const Graph& g = idx.graph();
    Plan p;
    const std::set<size_t> members(f.members.begin(), f.members.end());
    for (size_t m : f.members) {
      p.members.push_back(g.nodes[m].id);
      p.memberNames.push_back(g.nodes[m].name);
    }
    for (size_t r : f.shapeReaders) {
      const Node& n = g.nodes[r];
      std::vector<int64_t> dims = idx.shape(n.inputs[0])->values();
      if (n.is("Size")) {
        p.shapeConstants.push_back({n.id, Tensor::fromValues({}, DType::Int64, {}, std::vector<int64_t>{Shape::of(dims).numElements()})});
        continue;
      }
      const int64_t rank = static_cast<int64_t>(dims.size());
      auto clampAxis = [&](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
      const int64_t start = clampAxis(n.attrInt("start", 0)), end = clampAxis(n.attrInt("end", rank));
      std::vector<int64_t> part(dims.begin() + start, dims.begin() + std::max(start, end));
      p.shapeConstants.push_back({n.id, Tensor::fromValues({}, DType::Int64, {static_cast<int64_t>(part.size())}, part)});
    }
    const int64_t C = f.heads * f.headSize, cin = f.inputHidden;
    const AttentionProjection* proj[3] = {&f.q, &f.k, &f.v};
    // Reuse the packed weight (and bias) when its columns already are q|k|v.
    bool packed = f.q.weight == f.k.weight && f.k.weight == f.v.weight && !f.q.weightTransposed &&
                  idx.constant(f.q.weight)->dims[1] == 3 * C;
    for (int part = 0; part < 3 && packed; ++part)
      for (int64_t j = 0; j < C; ++j) packed &= proj[part]->columns[static_cast<size_t>(j)] == part * C + j;
    const bool sameBias = !f.q.bias.empty() && f.q.bias == f.k.bias && f.k.bias == f.v.bias;
    if (packed) p.weight = f.q.weight;
    if (packed && sameBias && idx.constant(f.q.bias)->dims == std::vector<int64_t>{3 * C}) p.bias = f.q.bias;
    if (p.weight.empty()) {
      for (const AttentionProjection* a : proj)
        if (!freedBy(idx, subReads, members, a->weight)) return std::nullopt;
      std::vector<float> w(static_cast<size_t>(cin * 3 * C));
      for (int part = 0; part < 3; ++part) {
        const Tensor* src = idx.constant(proj[part]->weight);
        const std::string_view raw = src->raw();  // float32, checked by the analysis
        const int64_t n = src->dims[proj[part]->weightTransposed ? 0 : 1];
        for (int64_t j = 0; j < C; ++j) {
          const int64_t col = proj[part]->columns[static_cast<size_t>(j)];
          for (int64_t r = 0; r < cin; ++r) {
            const int64_t at = proj[part]->weightTransposed ? col * cin + r : r * n + col;
            std::memcpy(&w[static_cast<size_t>(r * 3 * C + part * C + j)], raw.data() + at * 4, 4);
          }
        }
      }
      p.newWeight = floatTensor({cin, 3 * C}, w);
    }
    if (p.bias.empty()) {
      for (const AttentionProjection* a : proj)
        if (!a->bias.empty() && !freedBy(idx, subReads, members, a->bias)) return std::nullopt;
      std::vector<float> b(static_cast<size_t>(3 * C), 0.f);
      for (int part = 0; part < 3; ++part) {
        if (proj[part]->bias.empty()) continue;
        const auto values = idx.constant(proj[part]->bias)->toDouble();
        for (int64_t j = 0; j < C; ++j)
          b[static_cast<size_t>(part * C + j)] = static_cast<float>(values[static_cast<size_t>(proj[part]->columns[static_cast<size_t>(j)])]);
      }
      p.newBias = floatTensor({3 * C}, b);
    }
    if (!f.additive.empty()) p.additiveView = idx.shape(f.additive)->values() != f.additiveView;
    p.form = std::move(f);
    return p;
  }

  // A node to insert, with the base of its name: named when inserted, so that g.uniqueName sees
  // the nodes inserted before it.
  struct NewNode {
    Node node;
    std::string base;
  };
  static NewNode makeNode(Graph&, std::string op, std::vector<std::string> inputs, std::string output, std::string base) {
    NewNode n{{}, std::move(base)};
    n.node.opType = std::move(op);
    n.node.inputs = std::move(inputs);
    n.node.outputs = {std::move(output)};
    return n;
  }

  static std::string constant(Graph& g, Tensor t, std::string_view base) { return addInitializer(g, std::move(t), g.uniqueName(base)); }

  Rewrite apply(Graph& g, Plan& p, std::map<std::string, std::string>& maskIndexOf) const {
    const AttentionForm& f = p.form;
    for (auto& [id, value] : p.shapeConstants)
      if (Node* n = g.findNode(id)) {
        n->opType = "Constant";
        n->domain.clear();
        n->inputs.clear();
        n->attributes = {Attribute::makeTensor("value", value)};
      }
    const std::string scope = fusedNodeName(g, p.memberNames, "Attention");
    const std::string base = scope.substr(0, scope.rfind('/') + 1);
    const std::string weight = p.newWeight ? constant(g, std::move(*p.newWeight), base + "qkv_weight") : p.weight;
    const std::string bias = p.newBias ? constant(g, std::move(*p.newBias), base + "qkv_bias") : p.bias;
    std::vector<NewNode> before, after;
    std::string maskIndex;
    if (!f.padding.empty()) {
      // 1 where a key is attended, 0 where the graph hid it: the kernel's raw 2-D mask.
      const std::string key = f.padding + (f.paddingMasks ? "/hidden" : "/kept");
      if (auto it = maskIndexOf.find(key); it != maskIndexOf.end()) {
        maskIndex = it->second;
      } else {
        std::string attend = f.padding;
        if (f.paddingMasks) {
          before.push_back(makeNode(g, "Not", {f.padding}, g.uniqueName(f.padding + "_attended"), base + "Not"));
          attend = before.back().node.outputs[0];
        }
        NewNode cast = makeNode(g, "Cast", {attend}, g.uniqueName(f.padding + "_mask_index"), base + "Cast");
        cast.node.attributes = {Attribute::makeInt("to", static_cast<int64_t>(DType::Int32))};
        maskIndex = cast.node.outputs[0];
        before.push_back(std::move(cast));
        maskIndexOf[key] = maskIndex;
      }
    }
    std::string attnBias;
    if (!f.additive.empty()) {
      attnBias = f.additive;
      if (p.additiveView) {
        const std::string shape = constant(g, int64Tensor({4}, f.additiveView), base + "bias_view");
        before.push_back(makeNode(g, "Reshape", {attnBias, shape}, g.uniqueName(base + "bias_view_out"), base + "Reshape"));
        attnBias = before.back().node.outputs[0];
      }
      if (f.additiveView != f.additiveDims) {
        const std::string shape = constant(g, int64Tensor({4}, f.additiveDims), base + "bias_shape");
        before.push_back(makeNode(g, "Expand", {attnBias, shape}, g.uniqueName(base + "bias_expanded"), base + "Expand"));
        attnBias = before.back().node.outputs[0];
      }
      if (f.additiveScale != 1.0) {
        const std::string k = constant(g, floatTensor({}, {static_cast<float>(f.additiveScale)}), base + "bias_scale");
        before.push_back(makeNode(g, "Mul", {attnBias, k}, g.uniqueName(base + "bias_scaled"), base + "Mul"));
        attnBias = before.back().node.outputs[0];
      }
    }
    const int64_t B = f.batch, S = f.sequence, C = f.heads * f.headSize;
    const bool direct = !f.outputSequenceFirst && f.outputDims == std::vector<int64_t>{B, S, C};
    Node attn;
    attn.opType = "Attention";
    attn.domain = kMsDomain;
    attn.name = scope;
    attn.inputs = {f.input, weight, bias, maskIndex, "", attnBias};
    while (!attn.inputs.empty() && attn.inputs.back().empty()) attn.inputs.pop_back();
    attn.outputs = {direct ? f.output : g.uniqueName(base + "attention_output")};
    attn.attributes = {Attribute::makeInt("num_heads", f.heads), Attribute::makeFloat("scale", static_cast<float>(f.scale))};
    if (f.causal) attn.attributes.push_back(Attribute::makeInt("unidirectional", 1));
    if (!f.padding.empty()) attn.attributes.push_back(Attribute::makeFloat("mask_filter_value", static_cast<float>(f.maskFill)));
    if (!direct) {
      std::string v = attn.outputs[0];
      if (f.outputSequenceFirst) {
        after.push_back(makeNode(g, "Transpose", {v}, g.uniqueName(base + "sequence_first"), base + "Transpose"));
        after.back().node.attributes = {Attribute::makeInts("perm", {1, 0, 2})};
        v = after.back().node.outputs[0];
      }
      const std::string shape = constant(g, int64Tensor({static_cast<int64_t>(f.outputDims.size())}, f.outputDims), base + "output_shape");
      after.push_back(makeNode(g, "Reshape", {v, shape}, f.output, base + "Reshape"));
    }
    Rewrite r{std::string(m_info.id), {}, p.memberNames, {}, true, note(f)};
    const std::string name = replaceNodes(g, p.members, std::move(attn));
    size_t at = 0;
    while (g.nodes[at].name != name) ++at;
    auto named = [&](NewNode& n) {
      n.node.name = g.uniqueName(n.base);
      return std::move(n.node);
    };
    for (NewNode& n : before) r.nodesAfter.push_back(insertNode(g, at++, named(n)).name);
    r.nodesAfter.push_back(name);
    for (NewNode& n : after) r.nodesAfter.push_back(insertNode(g, ++at, named(n)).name);
    return r;
  }

  static std::string note(const AttentionForm& f) {
    std::string mask = f.causal ? "causal" : "";
    if (!f.padding.empty()) mask += std::string(mask.empty() ? "" : " + ") + "key padding";
    if (!f.additive.empty()) mask += std::string(mask.empty() ? "" : " + ") + "additive bias";
    char scale[32];
    std::snprintf(scale, sizeof scale, "%.6g", f.scale);
    return "com.microsoft Attention (ONNX Runtime contrib op): " + std::to_string(f.heads) + " heads of " +
           std::to_string(f.headSize) + ", scale " + scale + (mask.empty() ? "" : ", " + mask + " mask");
  }

  PassInfo m_info{"fuse_attention", OptLevel::Aggressive, true,
                  "self-attention (Q/K/V projections, heads, scaled MatMul, causal/padding/additive mask, Softmax, "
                  "MatMul, merge) -> com.microsoft Attention (ONNX Runtime)",
                  false, "com.microsoft Attention"};
};

}  // namespace

std::unique_ptr<Pass> makeFuseAttention() { return std::make_unique<FuseAttention>(); }

}  // namespace msa
