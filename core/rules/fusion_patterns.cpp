#include "rules/fusion_patterns.h"

#include <algorithm>
#include <cmath>

#include "rules/op_sets.h"
#include "rules/rule_util.h"

namespace msa {
namespace {

// The consumer of `value` with op `op` (any, when several consumers), or -1.
long consumerWithOp(const AnalysisContext& ctx, std::string_view value, std::string_view op) {
  for (const Use& u : ctx.index->consumers(value))
    if (ctx.node(u.node).is(op)) return static_cast<long>(u.node);
  return -1;
}

std::vector<std::string> blockersFor(const AnalysisContext& ctx, const std::vector<size_t>& members) {
  std::vector<std::string> outputs;
  if (!members.empty()) outputs.push_back(ctx.node(members.back()).outputs[0]);
  return groupBlockers(ctx, members, outputs);
}

// Activation on `value`: a single activation node, or SiLU / hard-swish written as x·f(x).
std::vector<size_t> activationOn(const AnalysisContext& ctx, const std::string& value, std::string& label) {
  auto uses = ctx.index->consumers(value);
  if (ctx.index->isGraphOutput(value)) return {};
  if (uses.size() == 1 && isActivation(ctx.node(uses[0].node))) {
    const Node& a = ctx.node(uses[0].node);
    label = a.opType;
    return {uses[0].node};
  }
  if (uses.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const Node& gate = ctx.node(uses[k].node);
      const Node& mul = ctx.node(uses[1 - k].node);
      if ((gate.is("Sigmoid") || gate.is("HardSigmoid")) && mul.is("Mul") &&
          otherOperand(mul, value) == gate.outputs[0]) {
        label = gate.is("Sigmoid") ? "SiLU" : "HardSwish";
        return {uses[k].node, uses[1 - k].node};
      }
    }
  }
  return {};
}

// Attribute problems that keep an activation out of a fused kernel.
void checkActivation(const AnalysisContext& ctx, const std::vector<size_t>& act, std::vector<std::string>& blockers) {
  for (size_t a : act) {
    const Node& n = ctx.node(a);
    if (n.is("Clip"))
      for (size_t k = 1; k < n.inputs.size(); ++k)
        if (!n.inputs[k].empty() && !ctx.index->constant(n.inputs[k])) blockers.push_back("not_constant:" + n.inputs[k]);
  }
}

}  // namespace

std::optional<PatternMatch> matchConvBnAct(const AnalysisContext& ctx, size_t conv) {
  const Node& c = ctx.node(conv);
  if ((!c.is("Conv") && !c.is("ConvTranspose")) || c.outputs.empty()) return std::nullopt;
  PatternMatch m;
  m.members.push_back(conv);
  std::string v = c.outputs[0];
  long bn = consumerWithOp(ctx, v, "BatchNormalization");
  if (bn >= 0 && ctx.node(static_cast<size_t>(bn)).input(0) == v) {
    const Node& b = ctx.node(static_cast<size_t>(bn));
    m.members.push_back(static_cast<size_t>(bn));
    if (b.attrInt("training_mode", 0) != 0) m.blockers.push_back("training_mode");
    for (size_t k = 1; k < b.inputs.size() && k < 5; ++k)
      if (!ctx.index->constant(b.inputs[k])) m.blockers.push_back("not_constant:" + b.inputs[k]);
    for (size_t k = 1; k < c.inputs.size(); ++k)
      if (!c.inputs[k].empty() && !ctx.index->constant(c.inputs[k])) m.blockers.push_back("not_constant:" + c.inputs[k]);
    // Folding writes new weights: a weight other nodes read too (tied weights) would be copied.
    for (size_t k = 1; k < c.inputs.size() && k < 3; ++k)
      if (!c.inputs[k].empty() && ctx.index->consumerCount(c.inputs[k]) > 1) m.blockers.push_back("shared_weight:" + c.inputs[k]);
    v = b.outputs[0];
  }
  auto act = activationOn(ctx, v, m.label);
  checkActivation(ctx, act, m.blockers);
  m.members.insert(m.members.end(), act.begin(), act.end());
  if (m.members.size() < 2) return std::nullopt;
  auto more = blockersFor(ctx, m.members);
  m.blockers.insert(m.blockers.end(), more.begin(), more.end());
  return m;
}

std::optional<PatternMatch> matchMatMulAddAct(const AnalysisContext& ctx, size_t mm) {
  const Node& n = ctx.node(mm);
  bool gemmWithBias = n.is("Gemm") && n.inputs.size() > 2 && !n.inputs[2].empty();
  if ((!n.is("MatMul") && !n.is("Gemm")) || n.outputs.empty()) return std::nullopt;
  PatternMatch m;
  m.members.push_back(mm);
  std::string v = n.outputs[0];
  if (!gemmWithBias) {
    long add = soleConsumer(ctx, v, "Add");
    if (add < 0 && consumerWithOp(ctx, v, "Add") >= 0) add = consumerWithOp(ctx, v, "Add");
    if (add < 0) return std::nullopt;
    const Node& a = ctx.node(static_cast<size_t>(add));
    std::string bias = otherOperand(a, v);
    const Tensor* bt = bias.empty() ? nullptr : ctx.index->constant(bias);
    if (!bt) return std::nullopt;  // a residual Add, not a bias
    m.members.push_back(static_cast<size_t>(add));
    v = a.outputs[0];
  }
  std::vector<size_t> act;
  if (auto g = matchGeluFrom(ctx, v)) {
    act = g->members;
    m.label = g->label;
  } else {
    act = activationOn(ctx, v, m.label);
  }
  m.members.insert(m.members.end(), act.begin(), act.end());
  if (m.members.size() < 2) return std::nullopt;
  m.blockers = blockersFor(ctx, m.members);
  return m;
}

std::optional<PatternMatch> matchLayerNorm(const AnalysisContext& ctx, size_t rm) { return matchLayerNorm(*ctx.index, rm); }
std::optional<PatternMatch> matchSoftmax(const AnalysisContext& ctx, size_t node) { return matchSoftmax(*ctx.index, node); }
std::optional<PatternMatch> matchGeluFrom(const AnalysisContext& ctx, const std::string& x) { return matchGeluFrom(*ctx.index, x); }
std::optional<PatternMatch> matchGeluAt(const AnalysisContext& ctx, size_t node) { return matchGeluAt(*ctx.index, node); }
std::vector<std::optional<PatternMatch>> matchGeluAll(const AnalysisContext& ctx) { return matchGeluAll(*ctx.index); }
std::vector<int64_t> permutationOf(const AnalysisContext& ctx, const Node& t) { return permutationOf(*ctx.index, t); }
bool isIdentitySplitConcat(const AnalysisContext& ctx, const Node& concat, const std::vector<size_t>& members) {
  return isIdentitySplitConcat(*ctx.index, concat, members);
}

}  // namespace msa
