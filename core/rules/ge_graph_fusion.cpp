// Graph fusion as ATC's graph engine runs it (rules/ge_fusion_sim.h): BatchNormalization into
// the convolution, a bias Add into the MatMul, decomposed LayerNorm and GELU into one operator,
// attention into FlashAttention.
#include <algorithm>
#include <string>
#include <vector>

#include "model/graph_patterns.h"
#include "rules/ge_fusion_sim.h"

namespace msa::gesim {
namespace {

void convBatchnorm(State& st) {
  for (size_t i = 0; i < st.kernelOf.size(); ++i) {
    const Node& c = st.node(i);
    if ((!c.is("Conv") && !c.is("ConvTranspose")) || !st.graphFree(i) || c.outputs.empty()) continue;
    const std::string& v = c.outputs[0];
    long bn = -1;
    for (const Use& u : st.index.consumers(v))
      if (st.node(u.node).is("BatchNormalization") && u.operand == 0) bn = static_cast<long>(u.node);
    if (bn < 0 || !st.graphFree(static_cast<size_t>(bn))) continue;
    const Node& b = st.node(static_cast<size_t>(bn));
    std::vector<std::string> why;
    if (b.attrInt("training_mode", 0) != 0) why.push_back("training_mode");
    for (size_t k = 1; k < b.inputs.size() && k < 5; ++k)
      if (!st.index.constant(b.inputs[k])) why.push_back("not_constant:" + b.inputs[k]);
    for (size_t k = 1; k < c.inputs.size(); ++k)
      if (!c.inputs[k].empty() && !st.index.constant(c.inputs[k])) why.push_back("not_constant:" + c.inputs[k]);
    if (st.index.consumerCount(v) > 1) why.push_back("multi_consumer:" + v);
    if (st.index.isGraphOutput(v)) why.push_back("graph_output:" + v);
    const int64_t group = c.attrInt("group", 1);
    const Shape* in = st.index.shape(c.input(0));
    const bool depthwise = group > 1 && in && in->rank() >= 2 && in->dims[1].known() && in->dims[1].value == group;
    if (c.is("ConvTranspose") && group != 1) why.push_back("ge_conv_groups:" + std::to_string(group));
    if (c.is("Conv") && depthwise) why.push_back("ge_depthwise_bn:" + c.name);
    const std::vector<size_t> members{i, static_cast<size_t>(bn)};
    if (!why.empty()) {
      st.nearMiss(kConvBn, members, why);
      continue;
    }
    if (!st.accept(kConvBn, members)) continue;
    const long k = st.kernelWith(i, Role::Conv);
    st.add(k, static_cast<size_t>(bn), true);
    st.note(k, kConvBn);
  }
}

// A constant bias over the last dim of `v`: [N] or [1, …, 1, N].
bool isBias(const State& st, std::string_view bias, std::string_view v) {
  const Tensor* t = st.index.constant(bias);
  const Shape* out = st.index.shape(v);
  if (!t || !out || out->rank() == 0 || !out->dims.back().known()) return false;
  const int64_t n = out->dims.back().value;
  if (t->dims.empty() || t->dims.back() != n) return false;
  for (size_t k = 0; k + 1 < t->dims.size(); ++k)
    if (t->dims[k] != 1) return false;
  return true;
}

void matmulBiasAdd(State& st) {
  for (size_t i = 0; i < st.kernelOf.size(); ++i) {
    const Node& mm = st.node(i);
    const bool gemmWithC = mm.is("Gemm") && mm.inputs.size() > 2 && !mm.inputs[2].empty();
    if ((!mm.is("MatMul") && !mm.is("Gemm")) || gemmWithC || !st.graphFree(i) || mm.outputs.empty()) continue;
    const std::string& v = mm.outputs[0];
    long bias = -1;
    for (const Use& u : st.index.consumers(v))
      if (st.node(u.node).is("Add") && isBias(st, otherOperand(st.node(u.node), v), v)) bias = static_cast<long>(u.node);
    if (bias < 0 || !st.graphFree(static_cast<size_t>(bias))) continue;
    std::vector<std::string> why;
    if (st.index.consumerCount(v) > 1) why.push_back("multi_consumer:" + v);
    if (st.index.isGraphOutput(v)) why.push_back("graph_output:" + v);
    const std::vector<size_t> members{i, static_cast<size_t>(bias)};
    if (!why.empty()) {
      st.nearMiss(kMatMulBias, members, why);
      continue;
    }
    if (!st.accept(kMatMulBias, members)) continue;
    const long k = st.kernelWith(i, Role::MatMul);
    st.add(k, static_cast<size_t>(bias), true);
    st.note(k, kMatMulBias);
  }
}

// A decomposed pattern replaced by one operator: every member must still be free.
void replace(State& st, const PatternMatch& m, const char* pass, Role role, std::vector<std::string> why) {
  if (!std::all_of(m.members.begin(), m.members.end(), [&](size_t i) { return st.graphFree(i); })) return;
  why.insert(why.end(), m.blockers.begin(), m.blockers.end());
  if (!why.empty()) {
    st.nearMiss(pass, m.members, why);
    return;
  }
  if (!st.accept(pass, m.members)) return;
  const long k = st.kernelWith(m.members.front(), role);
  for (size_t j = 1; j < m.members.size(); ++j) st.add(k, m.members[j]);
  st.note(k, pass);
}

void layerNorm(State& st) {
  for (size_t i = 0; i < st.kernelOf.size(); ++i) {
    if (!st.node(i).is("ReduceMean")) continue;
    if (auto m = matchLayerNorm(st.index, i)) {
      std::vector<std::string> why;
      if (!m->input.empty() && !st.staticShape(m->input)) why.push_back("ge_dynamic_shape:" + m->input);
      replace(st, *m, kLayerNorm, Role::Norm, why);
    }
  }
}

void gelu(State& st) {
  const auto gelus = matchGeluAll(st.index);
  for (const auto& m : gelus)
    if (m) replace(st, *m, kGelu, Role::Elementwise, {});
}

// MatMul(q, k) → [Mul|Div by a constant] → [Add mask] → Softmax(last axis) → MatMul(·, v).
void flashAttention(State& st) {
  for (size_t i = 0; i < st.kernelOf.size(); ++i) {
    if (!st.node(i).is("MatMul") || !st.free(i)) continue;
    std::vector<size_t> members{i};
    std::string v(st.node(i).output(0));
    std::vector<std::string> why;
    auto step = [&](std::initializer_list<const char*> ops) -> long {
      auto uses = st.index.consumers(v);
      if (uses.empty()) return -1;
      for (const Use& u : uses)
        for (const char* op : ops)
          if (st.node(u.node).is(op)) {
            if (uses.size() > 1) why.push_back("multi_consumer:" + v);
            if (st.index.isGraphOutput(v)) why.push_back("graph_output:" + v);
            return static_cast<long>(u.node);
          }
      return -1;
    };
    long n = step({"Mul", "Div"});
    if (n >= 0 && st.index.constant(otherOperand(st.node(static_cast<size_t>(n)), v))) {
      members.push_back(static_cast<size_t>(n));
      v = st.node(static_cast<size_t>(n)).outputs[0];
    }
    if ((n = step({"Add"})) >= 0) {
      members.push_back(static_cast<size_t>(n));
      v = st.node(static_cast<size_t>(n)).outputs[0];
    }
    n = step({"Softmax"});
    if (n < 0) continue;
    const Shape* s = st.index.shape(v);
    const int64_t axis = st.node(static_cast<size_t>(n)).attrInt("axis", -1);
    if (!s || s->rank() != 4 || (axis != -1 && axis != 3)) continue;
    members.push_back(static_cast<size_t>(n));
    v = st.node(static_cast<size_t>(n)).outputs[0];
    n = step({"MatMul"});
    if (n < 0 || st.node(static_cast<size_t>(n)).input(0) != v) continue;
    members.push_back(static_cast<size_t>(n));
    if (!std::all_of(members.begin(), members.end(), [&](size_t m) { return st.free(m); })) continue;
    for (size_t m : members) {
      auto b = st.ubBlockers(m, true);
      why.insert(why.end(), b.begin(), b.end());
    }
    PatternMatch match;
    match.members = members;
    replace(st, match, kAttention, Role::Attention, why);
  }
}

}  // namespace

void graphFusion(State& st) {
  convBatchnorm(st);
  matmulBiasAdd(st);
  layerNorm(st);
  gelu(st);
  flashAttention(st);
}

}  // namespace msa::gesim
