// FusionAdvisor: operator chains that could run as one kernel. Legality first: a group is only
// offered when every intermediate stays inside it (one consumer, not a graph output) and its
// attributes allow it; otherwise the finding is reported with `legal = false` and the blockers.
#include <algorithm>
#include <cmath>
#include <optional>
#include <map>
#include <set>

#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "model/attention_form.h"
#include "rules/fusion_patterns.h"
#include "rules/op_sets.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

class FusionAdvisor final : public Rule {
 public:
  std::string_view family() const override { return "fusion"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    std::set<size_t> claimed;  // nodes already in a specific pattern
    const size_t n = ctx.graph->nodes.size();
    auto emit = [&](Finding f, const std::vector<size_t>& members) {
      claimed.insert(members.begin(), members.end());
      out.push_back(std::move(f));
    };
    for (size_t i = 0; i < n; ++i) {
      if (auto m = matchConvBnAct(ctx, i)) emit(convFinding(ctx, *m), m->members);
      if (auto m = matchMatMulAddAct(ctx, i)) emit(matmulFinding(ctx, *m), m->members);
      if (auto m = matchLayerNorm(ctx, i)) emit(decomposedFinding(ctx, *m, "fusion.layernorm", "fuse_layernorm"), m->members);
      if (auto m = matchSoftmax(ctx, i)) emit(decomposedFinding(ctx, *m, "fusion.softmax", "fuse_softmax"), m->members);
    }
    // A decomposed GELU is its own finding even where a MatMul→Add→GELU finding covers it: the
    // GELU rewrite is portable, the bias+GELU epilogue is runtime-specific. The advisor's
    // overlap accounting keeps their impacts from being counted twice.
    const auto gelus = matchGeluAll(ctx);
    for (size_t i = 0; i < n; ++i)
      if (const auto& m = gelus[i]) emit(decomposedFinding(ctx, *m, "fusion.gelu", "fuse_gelu"), m->members);
    // A residual Add normalized by a LayerNormalization / SimplifiedLayerNormalization node: one
    // ONNX Runtime kernel (its decomposed RMSNorm form is fusion.rmsnorm below). It may share its
    // bias Add with a MatMul→Add finding; the advisor's overlap accounting counts it once.
    for (size_t i = 0; i < n; ++i)
      if (ctx.node(i).is("LayerNormalization") || ctx.node(i).is("SimplifiedLayerNormalization"))
        if (auto m = matchSkipNorm(*ctx.index, i)) emit(skipNormFinding(ctx, *m), m->match.members);
    // Patterns a tuner knows by name (attention, rotary embedding, SwiGLU, RMSNorm, SiLU): named
    // as such, not as an elementwise chain or a repeated sequence. No portable operator replaces
    // them below opset 23; where ONNX Runtime has a kernel that computes exactly the graph's
    // form, its pass is the fix.
    KnownOperands known(*ctx.index, true);
    for (size_t i = 0; i < n; ++i)
      for (const auto& [rule, m] : namedPatternsAt(*ctx.index, i))
        if (std::none_of(m.members.begin(), m.members.end(), [&](size_t k) { return claimed.count(k) != 0; })) {
          PatternMatch withFix = m;
          emit(runtimeFix(ctx, known, i, rule, withFix), m.members);
        }
    for (size_t i = 0; i < n; ++i) {
      if (auto f = layerNormMatMul(ctx, i)) out.push_back(std::move(*f));
      if (auto f = sliceConcat(ctx, i)) out.push_back(std::move(*f));
      if (auto f = reshapeChain(ctx, i)) out.push_back(std::move(*f));
      if (auto f = transposeChain(ctx, i)) out.push_back(std::move(*f));
      if (auto f = pipeline(ctx, i)) out.push_back(std::move(*f));
    }
    elementwiseRegions(ctx, claimed, out);
  }

 private:
  static Finding convFinding(const AnalysisContext& ctx, const PatternMatch& m) {
    bool hasBn = m.members.size() > 1 && ctx.node(m.members[1]).is("BatchNormalization");
    Finding f = makeFinding(ctx, hasBn ? "fusion.conv_bn_act" : "fusion.conv_act", Category::Fusion, m.members);
    f.blockers = m.blockers;
    f.legal = m.blockers.empty();
    f.impact = fusionImpact(ctx, m.members);
    // Folding BN into the weights is exact and portable; the activation needs a fused kernel
    // (ORT FusedConv, Ascend UB fusion), so only the fold is a safe fix. An activation written as
    // x·f(x) (SiLU, HardSwish) has no FusedConv epilogue in ONNX Runtime 1.21 (its activations:
    // Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid; contrib_ops/cpu/fused_activation.cc):
    // no pass fuses it, and the advice says so instead of naming a kernel that does not exist.
    const size_t activationNodes = m.members.size() - (hasBn ? 2u : 1u);
    if (activationNodes > 0) f.params["pattern"] = namedChain(ctx, m, hasBn ? 2 : 1);
    const bool epilogue = activationNodes == 1;
    f.fixPass = hasBn ? "fold_bn_into_conv" : epilogue ? "fuse_conv_activation" : "";
    f.safeFix = hasBn && f.legal;
    if (hasBn) f.fixSpan = 2;
    if (activationNodes > 0) f.params["activation"] = m.label;
    if (!hasBn) {
      const std::string how = epilogue ? "fused_conv" : m.label == "SiLU" ? "no_epilogue_silu" : "no_epilogue";
      f.params["advice"] = phrase("conv_act.advice." + how, {{"activation", m.label}});
      f.params["mitigation"] = phrase("conv_act.mitigation." + how, {{"activation", m.label}});
    }
    return f;
  }

  // The activations ONNX Runtime's FusedGemm takes (fuse_gemm_activation).
  static bool gemmActivation(const std::string& op) {
    for (const char* a : {"Relu", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "Selu", "HardSigmoid", "ThresholdedRelu", "Softplus",
                          "Softsign"})
      if (op == a) return true;
    return false;
  }

  static Finding matmulFinding(const AnalysisContext& ctx, const PatternMatch& m) {
    Finding f = makeFinding(ctx, "fusion.matmul_add_act", Category::Fusion, m.members);
    f.blockers = m.blockers;
    f.legal = m.blockers.empty();
    f.impact = fusionImpact(ctx, m.members);
    // MatMul(2-D)+Add is a standard Gemm; anything longer or higher-rank needs a runtime op.
    const Node& mm = ctx.node(m.members[0]);
    const Shape* a = ctx.index->shape(mm.input(0));
    bool gemmable = mm.is("MatMul") && m.members.size() == 2 && a && a->rank() == 2 &&
                    ctx.index->constant(mm.input(1)) != nullptr;
    // A pass exists for a 2-D MatMul+Add (Gemm), MatMul+Add+GELU (BiasGelu, FastGelu) and Gemm(bias)+
    // activation (FusedGemm); a higher-rank MatMul+Add alone or with another activation is advice.
    const bool gelu = m.label == "GELU(erf)" || m.label == "GELU(tanh)" || m.label == "Gelu";
    if (gemmable) f.fixPass = "fuse_matmul_add_into_gemm";
    else if (mm.is("MatMul") && m.members.size() > 2 && gelu) f.fixPass = "fuse_matmul_bias_activation";
    else if (mm.is("Gemm") && m.members.size() == 2 && gemmActivation(ctx.node(m.members[1]).opType))
      f.fixPass = "fuse_gemm_activation";
    f.safeFix = gemmable && f.legal;
    f.params["act_suffix"] = m.members.size() > 2 ? " and " + m.label : std::string();
    // The MatMul and its bias Add (a Gemm carries its bias), then the activation by name.
    const size_t head = m.members.size() > 1 && ctx.node(m.members[1]).is("Add") ? 2 : 1;
    if (m.members.size() > head && !m.label.empty()) f.params["pattern"] = namedChain(ctx, m, head);
    return f;
  }

  // The pattern's operators up to `head`, then its activation by name: "Conv→BatchNormalization
  // →SiLU" where the graph has Sigmoid and Mul, "MatMul→Add→GELU(erf)" for Div/Erf/Add/Mul/Mul.
  static std::string namedChain(const AnalysisContext& ctx, const PatternMatch& m, size_t head) {
    return opChain(ctx, std::span(m.members).first(head)) + "→" + m.label;
  }

  static Finding decomposedFinding(const AnalysisContext& ctx, const PatternMatch& m, const char* rule, const char* pass) {
    Finding f = makeFinding(ctx, rule, Category::Fusion, m.members);
    f.blockers = m.blockers;
    f.legal = m.blockers.empty();
    f.impact = fusionImpact(ctx, m.members);
    f.fixPass = pass;
    f.safeFix = false;  // a fused kernel computes in another order: moderate level only
    f.params["variant"] = m.label;
    return f;
  }

  // On the CPU the deployed runtime is ONNX Runtime: its contrib operators are a safe fix there.
  static bool onOnnxRuntime(const AnalysisContext& ctx) { return !ctx.device || ctx.device->kind == DeviceProfile::Kind::Cpu; }

  // The finding of a named pattern, with the exact ONNX Runtime rewrite when its kernel computes
  // the graph's form. The finding keeps the pattern's nodes (its title and its share of the run
  // describe them); the fix also replaces the nodes around them its kernel computes (the
  // attention's projections, head split and merge; the residual Add before an RMSNorm), and its
  // legality is theirs: `m.blockers` become the fix's.
  static Finding runtimeFix(const AnalysisContext& ctx, const KnownOperands& known, size_t node, const char* rule,
                            PatternMatch& m) {
    const std::string r = rule;
    std::string pass;
    std::map<std::string, std::string> params;
    if (r == "fusion.attention" && onOnnxRuntime(ctx)) {  // the proof costs ~2 ms: only where the fix runs
      auto a = analyzeAttention(known, node, ctx.model ? ctx.model->opset() : 13);
      if (a.form) {
        pass = "fuse_attention";
        m.blockers = a.form->blockers;
        params["heads"] = std::to_string(a.form->heads);
        params["mask"] = a.form->causal ? "causal" : !a.form->padding.empty() ? "padding" : !a.form->additive.empty() ? "additive" : "none";
      } else {
        params["declined"] = a.declined;
      }
    } else if (r == "fusion.rmsnorm") {
      if (auto s = matchSkipNorm(*ctx.index, node); s && s->rms) {
        pass = "fuse_skip_rmsnorm";
        m.blockers = s->match.blockers;
      }
    } else if (r == "fusion.rotary") {
      if (rotaryForm(*ctx.index, m)) pass = "fuse_rotary";
    }
    Finding f = namedFinding(ctx, m, rule);
    for (auto& [k, v] : params) f.params[k] = v;
    if (!pass.empty()) {
      f.fixPass = pass;
      f.safeFix = f.legal && onOnnxRuntime(ctx);
    }
    return f;
  }

  static Finding skipNormFinding(const AnalysisContext& ctx, const SkipNormMatch& m) {
    Finding f = makeFinding(ctx, "fusion.skip_norm", Category::Fusion, m.match.members);
    f.blockers = m.match.blockers;
    f.legal = f.blockers.empty();
    f.impact = fusionImpact(ctx, m.match.members);
    f.fixPass = m.rms ? "fuse_skip_rmsnorm" : "fuse_skip_layernorm";
    f.safeFix = f.legal && onOnnxRuntime(ctx);
    f.params["variant"] = m.match.label;
    f.params["sum_read"] = m.sumRead ? "1" : "0";
    return f;
  }

  static Finding namedFinding(const AnalysisContext& ctx, const PatternMatch& m, const char* rule) {
    Finding f = makeFinding(ctx, rule, Category::Fusion, m.members);
    f.blockers = m.blockers;
    f.legal = m.blockers.empty();
    f.impact = fusionImpact(ctx, m.members);
    f.params["variant"] = m.label;
    return f;
  }

  // LayerNorm (op or decomposed tail) feeding a MatMul: only a custom fused kernel merges them.
  static std::optional<Finding> layerNormMatMul(const AnalysisContext& ctx, size_t i) {
    const Node& ln = ctx.node(i);
    if (!ln.is("LayerNormalization") || ln.outputs.empty()) return std::nullopt;
    long mm = soleConsumer(ctx, ln.outputs[0], "MatMul");
    if (mm < 0) return std::nullopt;
    std::vector<size_t> members{i, static_cast<size_t>(mm)};
    Finding f = makeFinding(ctx, "fusion.layernorm_matmul", Category::Fusion, members);
    double b = valueBytes(ctx, ln.outputs[0]);
    OpCost roundTrip;
    roundTrip.known = true;
    roundTrip.unit = OpCost::Unit::Memory;
    roundTrip.bytesRead = roundTrip.bytesWritten = std::max(0.0, b);
    f.impact.currentMs = groupTimeMs(ctx, members);
    double saved = ctx.rooflineMs ? ctx.rooflineMs(roundTrip) : 0.0;
    f.impact.ms = f.impact.rawMs = std::min(saved, f.impact.currentMs);
    f.impact.fixedMs = f.impact.currentMs - f.impact.ms;
    f.impact.method = phrase("method.fusion.layernorm_matmul");
    f.fixPass.clear();  // needs a custom operator: advice only
    return f;
  }

  // Concat of slices (or Split outputs) of one tensor: a no-op when they rebuild it in order,
  // otherwise a rearrangement one data-movement op could do.
  static std::optional<Finding> sliceConcat(const AnalysisContext& ctx, size_t i) {
    const Node& c = ctx.node(i);
    if (!c.is("Concat") || c.inputs.size() < 2) return std::nullopt;
    std::string source;
    std::vector<size_t> members;
    for (const auto& in : c.inputs) {
      long p = ctx.index->producer(in);
      if (p < 0) return std::nullopt;
      const Node& s = ctx.node(static_cast<size_t>(p));
      if (!s.is("Slice") && !s.is("Split")) return std::nullopt;
      if (source.empty()) source = s.inputs[0];
      if (s.inputs[0] != source) return std::nullopt;
      if (std::find(members.begin(), members.end(), static_cast<size_t>(p)) == members.end())
        members.push_back(static_cast<size_t>(p));
    }
    members.push_back(i);
    bool identity = isIdentitySplitConcat(ctx, c, members);
    Finding f = makeFinding(ctx, "fusion.slice_concat", Category::Fusion, members);
    f.params["variant"] = identity ? "identity" : "rearrangement";
    f.params["source"] = source;
    std::vector<std::string> outputs{c.outputs[0]};
    f.blockers = groupBlockers(ctx, members, outputs);
    f.legal = f.blockers.empty();
    if (identity) {
      f.impact = removalImpact(ctx, members);
      f.fixPass = "eliminate_slice_concat";
      f.safeFix = f.legal;
    } else {
      f.impact = fusionImpact(ctx, members);
    }
    return f;
  }

  // A maximal chain of shape-only ops, anchored at its first node.
  static std::optional<Finding> reshapeChain(const AnalysisContext& ctx, size_t i) {
    const Node& first = ctx.node(i);
    if (!isReshapeLike(first)) return std::nullopt;
    if (const Node* p = ctx.index->producerNode(first.input(0)); p && isReshapeLike(*p) &&
                                                                  soleConsumer(ctx, p->outputs[0]) >= 0)
      return std::nullopt;  // not the head of the chain
    std::vector<size_t> members{i};
    for (long next = soleConsumer(ctx, first.outputs[0]); next >= 0 && isReshapeLike(ctx.node(static_cast<size_t>(next)));
         next = soleConsumer(ctx, ctx.node(static_cast<size_t>(next)).outputs[0]))
      members.push_back(static_cast<size_t>(next));
    if (members.size() < 2) return std::nullopt;
    Finding f = makeFinding(ctx, "fusion.reshape_chain", Category::Fusion, members);
    const Shape* s = ctx.index->shape(ctx.node(members.back()).outputs[0]);
    if (!s || !s->fullyKnown()) f.blockers.push_back("unknown_shape:" + ctx.node(members.back()).outputs[0]);
    f.legal = f.blockers.empty();
    std::vector<size_t> removed(members.begin(), members.end() - 1);
    f.impact = removalImpact(ctx, removed);
    f.fixPass = "merge_reshapes";
    f.safeFix = f.legal;
    return f;
  }

  // Consecutive Transposes that do not cancel (inverse pairs are a format finding).
  static std::optional<Finding> transposeChain(const AnalysisContext& ctx, size_t i) {
    const Node& t = ctx.node(i);
    if (!t.is("Transpose")) return std::nullopt;
    long next = soleConsumer(ctx, t.outputs[0], "Transpose");
    if (next < 0) return std::nullopt;
    auto p1 = permutationOf(ctx, t), p2 = permutationOf(ctx, ctx.node(static_cast<size_t>(next)));
    if (p1.empty() || p1.size() != p2.size()) return std::nullopt;
    bool inverse = true;
    for (size_t k = 0; k < p2.size(); ++k) inverse &= p1[static_cast<size_t>(p2[k])] == static_cast<int64_t>(k);
    if (inverse) return std::nullopt;
    std::vector<size_t> members{i, static_cast<size_t>(next)};
    Finding f = makeFinding(ctx, "fusion.transpose_chain", Category::Fusion, members);
    std::vector<size_t> removed{i};
    f.impact = removalImpact(ctx, removed);
    f.fixPass = "cancel_transposes";
    f.safeFix = true;
    return f;
  }

  // Conv(→BN)(→act)→Conv: not a fusion. Reported so the user sees why it is left alone.
  static std::optional<Finding> pipeline(const AnalysisContext& ctx, size_t i) {
    const Node& c = ctx.node(i);
    if (!c.is("Conv")) return std::nullopt;
    std::vector<size_t> members{i};
    std::string v = c.outputs[0];
    for (int step = 0; step < 3; ++step) {
      long next = soleConsumer(ctx, v);
      if (next < 0) return std::nullopt;
      const Node& nn = ctx.node(static_cast<size_t>(next));
      members.push_back(static_cast<size_t>(next));
      if (nn.is("Conv")) break;
      if (!nn.is("BatchNormalization") && !isActivation(nn)) return std::nullopt;
      v = nn.outputs[0];
    }
    if (!ctx.node(members.back()).is("Conv") || members.size() < 3) return std::nullopt;
    Finding f = makeFinding(ctx, "fusion.pipeline", Category::Fusion, members);
    f.legal = false;
    f.blockers.push_back("pipeline:" + ctx.node(members.back()).name);
    f.impact.currentMs = groupTimeMs(ctx, members);
    f.impact.fixedMs = f.impact.currentMs;
    f.impact.method = phrase("method.fusion.pipeline");
    return f;
  }

  // Connected elementwise ops whose intermediates stay inside: one kernel on a fusing runtime.
  static void elementwiseRegions(const AnalysisContext& ctx, const std::set<size_t>& claimed, std::vector<Finding>& out) {
    const size_t n = ctx.graph->nodes.size();
    std::vector<size_t> parent(n);
    for (size_t i = 0; i < n; ++i) parent[i] = i;
    auto find = [&](size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    auto eligible = [&](size_t i) { return isElementwise(ctx.node(i)) && !claimed.count(i); };
    for (size_t i = 0; i < n; ++i) {
      if (!eligible(i)) continue;
      for (const auto& o : ctx.node(i).outputs) {
        auto uses = ctx.index->consumers(o);
        if (uses.empty() || ctx.index->isGraphOutput(o)) continue;
        bool allInside = std::all_of(uses.begin(), uses.end(), [&](const Use& u) { return eligible(u.node); });
        if (!allInside) continue;
        for (const Use& u : uses) parent[find(u.node)] = find(i);
      }
    }
    std::map<size_t, std::vector<size_t>> regions;
    for (size_t i = 0; i < n; ++i)
      if (eligible(i)) regions[find(i)].push_back(i);
    for (auto& [root, members] : regions) {
      if (members.size() < 2) continue;
      auto outputs = groupOutputs(ctx, members);
      Finding f = makeFinding(ctx, "fusion.elementwise_chain", Category::Fusion, members);
      f.params["ops"] = std::to_string(members.size());
      f.params["outputs"] = std::to_string(outputs.size());
      f.impact = fusionImpact(ctx, members);
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> makeFusionRules() { return std::make_unique<FusionAdvisor>(); }

}  // namespace msa
