// Runtime-specific (ONNX Runtime, com.microsoft domain) activation fusions, written the way ONNX
// Runtime's own optimizer writes them, so a session with its optimizer disabled runs the fused
// kernels directly:
//  - Conv + Relu/Sigmoid/Tanh/LeakyRelu/Clip/HardSigmoid -> FusedConv(X, W, B) with `activation`
//    and `activation_params` (ConvActivationFusion; MLAS applies it in the convolution's epilogue).
//    Not Conv + Add + activation into FusedConv's Sum input: ONNX Runtime 1.21 runs that node
//    correctly with its optimizer disabled but computes wrong outputs from it at ORT_ENABLE_ALL
//    (seen on ResNet-18 by the verifier's second run), and ORT_ENABLE_ALL is what users run.
//  - Gemm + an elementwise activation -> FusedGemm with `activation` and `activation_<attr>`
//    (GemmActivationFusion).
// The fused node keeps the Conv's / Gemm's name, so profiles and findings still find it.
#include <cmath>
#include <limits>
#include <optional>

#include "model/graph_index.h"
#include "model/rewrite.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

constexpr const char* kMsDomain = "com.microsoft";

bool isFloat32(const GraphIndex& idx, std::string_view value) { return idx.dtype(value) == DType::Float; }

// A constant float scalar input, the default when the input is omitted; nullopt when not constant.
std::optional<float> constScalar(const GraphIndex& idx, const Node& n, size_t input, float dflt) {
  if (n.inputs.size() <= input || n.inputs[input].empty()) return dflt;
  const Tensor* t = idx.constant(n.inputs[input]);
  if (!t || t->numElements() != 1) return std::nullopt;
  auto v = t->scalar();
  if (!v) return std::nullopt;
  return static_cast<float>(*v);
}

struct Activation {
  std::string type;
  std::vector<float> params;  // FusedConv's activation_params
  std::vector<Attribute> attrs;  // FusedGemm's activation_<name> attributes
};

// The activations FusedConv's CPU kernel implements (contrib_ops/cpu/fused_activation.cc).
std::optional<Activation> convActivation(const Node& a, const GraphIndex& idx, int64_t opset) {
  if (!a.isDefaultDomain() || a.inputs.empty() || a.outputs.size() != 1) return std::nullopt;
  Activation act{a.opType, {}, {}};
  if (a.is("Relu") || a.is("Sigmoid") || a.is("Tanh")) return act;
  if (a.is("LeakyRelu")) {
    act.params = {a.attrFloat("alpha", 0.01f)};
    return act;
  }
  if (a.is("HardSigmoid")) {
    act.params = {a.attrFloat("alpha", 0.2f), a.attrFloat("beta", 0.5f)};
    return act;
  }
  if (a.is("Clip")) {
    float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
    if (opset < 11) {
      lo = a.attrFloat("min", lo);
      hi = a.attrFloat("max", hi);
    } else {
      auto l = constScalar(idx, a, 1, lo), h = constScalar(idx, a, 2, hi);
      if (!l || !h) return std::nullopt;  // bounds computed at run time
      lo = *l;
      hi = *h;
    }
    act.params = {lo, hi};
    return act;
  }
  return std::nullopt;
}

// The activations FusedGemm's functors implement, with every parameter spelled out (the functors
// read them as activation_<name>; ONNX's defaults written explicitly).
std::optional<Activation> gemmActivation(const Node& a) {
  if (!a.isDefaultDomain() || a.inputs.size() != 1 || a.outputs.size() != 1) return std::nullopt;
  Activation act{a.opType, {}, {}};
  auto param = [&](const char* name, float dflt) {
    act.attrs.push_back(Attribute::makeFloat(std::string("activation_") + name, a.attrFloat(name, dflt)));
  };
  if (a.is("Relu") || a.is("Sigmoid") || a.is("Tanh") || a.is("Softsign") || a.is("Softplus")) return act;
  if (a.is("LeakyRelu")) param("alpha", 0.01f);
  else if (a.is("Elu")) param("alpha", 1.0f);
  else if (a.is("ThresholdedRelu")) param("alpha", 1.0f);
  else if (a.is("HardSigmoid")) param("alpha", 0.2f), param("beta", 0.5f);
  else if (a.is("Selu")) param("alpha", 1.67326319217681884765625f), param("gamma", 1.05070102214813232421875f);
  else return std::nullopt;
  return act;
}

const Node* onlyConsumer(const GraphIndex& idx, const Graph& g, std::string_view value) {
  if (!singleUse(idx, value)) return nullptr;
  return &g.nodes[idx.consumers(value)[0].node];
}

void importMsDomain(Model& m) {
  if (m.opset(kMsDomain) == 0) m.opsets.push_back({kMsDomain, 1});
}

// Replaces `anchor` (in place, keeping its name) by the fused node and removes `absorbed`.
void fuse(Graph& g, NodeId anchor, const std::string& opType, std::vector<std::string> inputs,
          const std::string& output, std::vector<Attribute> extra, const std::vector<NodeId>& absorbed) {
  Node* n = g.findNode(anchor);
  n->opType = opType;
  n->domain = kMsDomain;
  n->inputs = std::move(inputs);
  n->outputs = {output};
  for (auto& a : extra) n->setAttr(std::move(a));
  g.removeNodes(absorbed);
}

class FuseConvActivation final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    const int64_t opset = model.opset();
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      for (const Node& conv : g.nodes) {
        if (!conv.is("Conv") || conv.inputs.size() < 2 || conv.outputs.size() != 1) continue;
        if (!isFloat32(idx, conv.inputs[0])) continue;
        const Node* next = onlyConsumer(idx, g, conv.outputs[0]);
        if (!next) continue;
        auto act = convActivation(*next, idx, opset);
        if (!act) continue;
        if (!ctx.matches(conv.name) && !ctx.matches(next->name)) continue;

        Rewrite r{std::string(m_info.id), {}, {conv.name, next->name}, {conv.name}, true,
                  "com.microsoft FusedConv (activation " + act->type + "): ONNX Runtime only"};
        std::vector<Attribute> attrs{Attribute::makeString("activation", act->type)};
        if (!act->params.empty()) attrs.push_back(Attribute::makeFloats("activation_params", act->params));
        fuse(g, conv.id, "FusedConv", conv.inputs, next->outputs[0], std::move(attrs), {next->id});
        importMsDomain(model);
        return r;
      }
      return std::nullopt;
    });
  }

 private:
  PassInfo m_info{"fuse_conv_activation", OptLevel::Aggressive, true,
                  "Conv + Relu/Sigmoid/Tanh/LeakyRelu/Clip/HardSigmoid -> com.microsoft FusedConv (ONNX Runtime)", false,
                  "com.microsoft FusedConv"};
};

class FuseGemmActivation final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    Graph& g = model.graph;
    return rewriteUntilStable(g, [&](const GraphIndex& idx) -> std::optional<Rewrite> {
      for (const Node& gemm : g.nodes) {
        // FusedGemm's CPU kernel is float; its schema wants C, so a Gemm without one stays.
        if (!gemm.is("Gemm") || gemm.inputs.size() < 3 || gemm.inputs[2].empty() || gemm.outputs.size() != 1) continue;
        if (!isFloat32(idx, gemm.inputs[0])) continue;
        const Node* next = onlyConsumer(idx, g, gemm.outputs[0]);
        if (!next) continue;
        auto act = gemmActivation(*next);
        if (!act || (!ctx.matches(gemm.name) && !ctx.matches(next->name))) continue;
        Rewrite r{std::string(m_info.id), {}, {gemm.name, next->name}, {gemm.name}, true,
                  "com.microsoft FusedGemm (activation " + act->type + "): ONNX Runtime only"};
        std::vector<Attribute> attrs{Attribute::makeString("activation", act->type)};
        for (auto& a : act->attrs) attrs.push_back(std::move(a));
        fuse(g, gemm.id, "FusedGemm", gemm.inputs, next->outputs[0], std::move(attrs), {next->id});
        importMsDomain(model);
        return r;
      }
      return std::nullopt;
    });
  }

 private:
  PassInfo m_info{"fuse_gemm_activation", OptLevel::Aggressive, true,
                  "Gemm + Relu/Sigmoid/Tanh/LeakyRelu/Elu/Selu/HardSigmoid/Softplus/Softsign -> com.microsoft FusedGemm (ONNX Runtime)",
                  false, "com.microsoft FusedGemm"};
};

}  // namespace

std::unique_ptr<Pass> makeFuseConvActivation() { return std::make_unique<FuseConvActivation>(); }
std::unique_ptr<Pass> makeFuseGemmActivation() { return std::make_unique<FuseGemmActivation>(); }

}  // namespace msa
